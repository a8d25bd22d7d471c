package dev.cryo.cli;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.cryo.freezer.CborCodec;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import dev.cryo.freezer.Parcel;
import dev.cryo.freezer.ParcelCodec;
import dev.cryo.freezer.ParcelFormat;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.freezer.SmileCodec;
import dev.cryo.lock.DirectoryListing;
import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessTable;
import dev.cryo.lock.SpareFolders;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What the {@code cryo freezer} commands read from a freezer root, without constructing a
 * {@link Freezer} (which creates a missing root) and without changing anything: folders, parcels
 * checked through {@link ParcelFormat}, and semaphores judged as {@code cryo lock status} judges a
 * lock.
 */
final class FreezerView {

  /** A parcel's state when its lengths and checksums agree (and, for show, its payload decodes). */
  static final String OK = "ok";

  private FreezerView() {}

  /**
   * The header of a parcel, as the commands print it.
   *
   * @param writer who wrote it
   * @param writtenAt when (ISO-8601, UTC)
   * @param ageSeconds how long ago, in whole seconds
   * @param cause why
   * @param group the writer's group; empty for the commander
   * @param codec the codec that encoded the payload
   */
  @JsonPropertyOrder({"writer", "writtenAt", "ageSeconds", "cause", "group", "codec"})
  record Header(String writer, String writtenAt, long ageSeconds, String cause, String group,
      String codec) {

    static Header of(ParcelHeader header, Instant now) {
      return new Header(header.writer(), header.writtenAt().toString(),
          Duration.between(header.writtenAt(), now).toSeconds(), header.cause(), header.group(),
          header.codec());
    }

    String toText() {
      return "written by " + quoted(writer) + ", cause " + quoted(cause)
          + (group.isEmpty() ? "" : ", group " + quoted(group)) + ", " + age(ageSeconds)
          + " (" + writtenAt + ", codec " + codec + ")";
    }
  }

  /**
   * One parcel file as found.
   *
   * @param file its file name
   * @param kind {@code user}, {@code connection} or {@code commander}
   * @param connection the connection's key for a connection parcel, else null
   * @param size its size in bytes
   * @param state {@code ok}, or the freezer's reason code: {@code corrupt_parcel},
   *     {@code unsupported_version}, {@code not_a_regular_file}, {@code invalid_payload},
   *     {@code io_failure}
   * @param problem what is wrong, in one line; null when ok
   * @param header the header, when it could be read (a parcel torn in its payload still has one)
   * @param payload the decoded payload, rendered as plain data; filled only by {@code show}, and
   *     empty also when it decoded to null
   */
  @JsonPropertyOrder({"file", "kind", "connection", "size", "state", "problem", "header"})
  record ParcelFile(String file, String kind, String connection, long size, String state,
      String problem, Header header, @JsonIgnore Optional<Object> payload) {}

  /** A whole parcel read from {@code path}, or its problem. */
  static ParcelFile parcel(Path path, Instant now, boolean decodePayload) {
    String name = path.getFileName().toString();
    String kind;
    String connection = null;
    if (name.equals(Freezer.USER_PARCEL)) {
      kind = "user";
    } else if (name.equals(Freezer.COMMANDER_PARCEL)) {
      kind = "commander";
    } else {
      kind = "connection";
      connection = name.substring(Freezer.CONNECTION_PARCEL_PREFIX.length(),
          name.length() - Freezer.PARCEL_SUFFIX.length());
    }
    long size = -1;
    Header header = null;
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      size = attributes.size();
      if (!attributes.isRegularFile()) {
        return new ParcelFile(name, kind, connection, size,
            FreezerException.Reason.NOT_A_REGULAR_FILE.code(), path + " is not a regular file"
                + " (a symbolic link, a directory, a FIFO?); it was not opened", null,
            Optional.empty());
      }
      if (!decodePayload) {
        return headerOnly(path, name, kind, connection, size, now);
      }
      if (size > Freezer.DEFAULT_MAX_PARCEL_LENGTH) {
        return new ParcelFile(name, kind, connection, size,
            FreezerException.Reason.PARCEL_TOO_LARGE.code(), "parcel " + path + " is " + size
                + " bytes long, above the freezer's cap of " + Freezer.DEFAULT_MAX_PARCEL_LENGTH
                + " bytes; it was not read", null, Optional.empty());
      }
      byte[] bytes;
      try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
        bytes = in.readNBytes(Freezer.DEFAULT_MAX_PARCEL_LENGTH + 1);
      }
      if (bytes.length > Freezer.DEFAULT_MAX_PARCEL_LENGTH) {
        return new ParcelFile(name, kind, connection, size,
            FreezerException.Reason.PARCEL_TOO_LARGE.code(), "parcel " + path + " grew past the"
                + " freezer's cap of " + Freezer.DEFAULT_MAX_PARCEL_LENGTH + " bytes while it was"
                + " read; it was not decoded", null, Optional.empty());
      }
      try {
        header = Header.of(ParcelFormat.decodeHeader(path, bytes), now);
      } catch (FreezerException e) {
        return failed(name, kind, connection, size, null, e);
      }
      Parcel parcel;
      try {
        parcel = ParcelFormat.decode(path, bytes);
      } catch (FreezerException e) {
        return failed(name, kind, connection, size, header, e);
      }
      String written = parcel.header().codec();
      Optional<ParcelCodec> codec = ParcelCodec.builtIn(written);
      if (codec.isEmpty()) {
        return new ParcelFile(name, kind, connection, size,
            FreezerException.Reason.INVALID_PAYLOAD.code(), "the payload was written with the"
                + " codec '" + written + "'; this command decodes only '" + SmileCodec.NAME
                + "' and '" + CborCodec.NAME + "'", header, Optional.empty());
      }
      Object decoded;
      try {
        decoded = codec.get().decode(parcel.payload());
      } catch (IOException | RuntimeException e) {
        return new ParcelFile(name, kind, connection, size,
            FreezerException.Reason.INVALID_PAYLOAD.code(), "the payload is whole but the codec '"
                + written + "' refuses it: " + Cryo.oneLine(e.getMessage()), header,
            Optional.empty());
      }
      return new ParcelFile(name, kind, connection, size, OK, null, header,
          Optional.ofNullable(plain(decoded)));
    } catch (NoSuchFileException e) {
      return new ParcelFile(name, kind, connection, size, FreezerException.Reason.IO_FAILURE.code(),
          path + " vanished while it was read", header, Optional.empty());
    } catch (IOException e) {
      return new ParcelFile(name, kind, connection, size, FreezerException.Reason.IO_FAILURE.code(),
          "could not read " + path + ": " + Cryo.oneLine(e.toString()), header, Optional.empty());
    }
  }

  /**
   * A parcel judged by its first bytes alone, as {@code ls} does: its header whole and unaltered,
   * and the length its lengths add up to the file's size. The payload is neither read nor checked.
   */
  private static ParcelFile headerOnly(Path path, String name, String kind, String connection,
      long size, Instant now) throws IOException {
    byte[] prefix;
    try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
      prefix = in.readNBytes(ParcelFormat.HEADER_PREFIX_LENGTH + 8);
    }
    Header header;
    try {
      header = Header.of(ParcelFormat.decodeHeader(path, prefix), now);
    } catch (FreezerException e) {
      return failed(name, kind, connection, size, null, e);
    }
    long declared;
    try {
      declared = ParcelFormat.declaredLength(path, prefix);
    } catch (FreezerException e) {
      return failed(name, kind, connection, size, header, e);
    }
    if (declared != size) {
      return new ParcelFile(name, kind, connection, size,
          FreezerException.Reason.CORRUPT_PARCEL.code(), "parcel " + path + " is corrupt: it is "
              + size + " bytes long but its lengths say " + declared + " bytes (a write cut short,"
              + " or an altered file)", header, Optional.empty());
    }
    return new ParcelFile(name, kind, connection, size, OK, null, header, Optional.empty());
  }

  private static ParcelFile failed(String name, String kind, String connection, long size,
      Header header, FreezerException e) {
    return new ParcelFile(name, kind, connection, size, e.reason().code(),
        Cryo.oneLine(e.getMessage()), header, Optional.empty());
  }

  /** The parcels of a folder, the user's first, then the connections by name. */
  static List<ParcelFile> parcels(Path folder, Instant now, boolean decodePayload) {
    List<ParcelFile> parcels = new ArrayList<>();
    Path user = folder.resolve(Freezer.USER_PARCEL);
    if (Files.exists(user, LinkOption.NOFOLLOW_LINKS)) {
      parcels.add(parcel(user, now, decodePayload));
    }
    for (String name : names(folder)) {
      if (name.startsWith(Freezer.CONNECTION_PARCEL_PREFIX) && name.endsWith(Freezer.PARCEL_SUFFIX)
          && name.length() > Freezer.CONNECTION_PARCEL_PREFIX.length()
              + Freezer.PARCEL_SUFFIX.length()) {
        parcels.add(parcel(folder.resolve(name), now, decodePayload));
      }
    }
    return parcels;
  }

  /**
   * The header of the {@link Freezer#UNREADABLE_NOTE} in {@code folder}, read alone, or null when
   * there is none or it does not read (a note is a diagnosis, never a reason to stop).
   */
  static Header unreadableNote(Path folder, Instant now) {
    Path note = folder.resolve(Freezer.UNREADABLE_NOTE);
    if (!Files.isRegularFile(note, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try (InputStream in = Files.newInputStream(note, LinkOption.NOFOLLOW_LINKS)) {
      return Header.of(ParcelFormat.decodeHeader(note,
          in.readNBytes(ParcelFormat.HEADER_PREFIX_LENGTH)), now);
    } catch (IOException e) {
      return null; // FreezerException included: a torn note says nothing
    }
  }

  /** The semaphore of {@code folder}, judged like {@code cryo lock status} judges a lock. */
  static LockStatusReport semaphore(Path folder, Instant now) {
    Path lock = folder.resolve(FolderSemaphore.FILE_NAME);
    return LockStatusReport.of(lock, LockFile.at(lock).read(), ProcessTable.system(), now);
  }

  /** The keys of the real directories at the root, sorted; the empty spare folders are none. */
  static List<String> folderKeys(Path root) {
    List<String> keys = new ArrayList<>();
    for (String name : names(root)) {
      if (!SpareFolders.isSpareName(name) && !dev.cryo.lock.HolderRecords.isRecordsName(name)
          && Files.isDirectory(root.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
        keys.add(name);
      }
    }
    return keys;
  }

  /** The names in {@code directory}, sorted. */
  static TreeSet<String> names(Path directory) {
    TreeSet<String> names = new TreeSet<>();
    try (DirectoryStream<Path> entries = DirectoryListing.open(directory)) {
      for (Path entry : entries) {
        names.add(entry.getFileName().toString());
      }
    } catch (NoSuchFileException e) {
      // A folder released meanwhile: nothing in it.
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, FreezerException.Reason.IO_FAILURE.code(),
          "could not list " + directory + ": " + e, e);
    }
    return names;
  }

  /**
   * The freezer root named on the command line, as an absolute path; never created.
   *
   * @throws CommandFailure 66 when it is missing or not a directory, 74 when it cannot be examined
   */
  static Path existingRoot(Path root) {
    return ExistingDirectory.check(root, "freezer root");
  }

  /**
   * A decoded payload as plain data for JSON: maps, lists, strings, numbers, booleans and null stay;
   * bytes become {@code {"bytes": LENGTH, "base64": "..."}}.
   */
  static Object plain(Object value) {
    return switch (value) {
      case byte[] bytes -> {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("bytes", bytes.length);
        shown.put("base64", Base64.getEncoder().encodeToString(bytes));
        yield shown;
      }
      case Map<?, ?> map -> {
        Map<String, Object> shown = new LinkedHashMap<>();
        map.forEach((k, v) -> shown.put(String.valueOf(k), plain(v)));
        yield shown;
      }
      case List<?> list -> {
        List<Object> shown = new ArrayList<>(list.size());
        list.forEach(v -> shown.add(plain(v)));
        yield shown;
      }
      case null -> null;
      default -> value;
    };
  }

  static String quoted(String text) {
    return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
  }

  static String age(long seconds) {
    if (seconds < 0) {
      return "in the future (" + (-seconds) + " s ahead)";
    }
    if (seconds < 120) {
      return seconds + " s ago";
    }
    if (seconds < 7200) {
      return seconds / 60 + " min ago";
    }
    if (seconds < 172800) {
      return seconds / 3600 + " h ago";
    }
    return seconds / 86400 + " d ago";
  }

  /** One line for a semaphore: its state, holder and liveness. */
  static String semaphoreText(LockStatusReport report) {
    return switch (report.state()) {
      case LockStatusReport.FREE -> "free";
      case LockStatusReport.HELD -> "held by pid " + report.holder().pid()
          + (report.holder().name() == null ? "" : " " + quoted(report.holder().name()))
          + (report.holder().since() == null ? "" : " since " + report.holder().since())
          + ", holder " + report.liveness() + " (" + report.reason() + ")";
      default -> report.state() + ": " + report.reason();
    };
  }
}
