package dev.cryo.lock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Publishing a file so that a reader sees it complete or not at all.
 *
 * <p>{@link #publishExclusive} writes the content into a uniquely named temporary in the target's own
 * directory (exclusive create, never following a link, mode 0600), writes it whole, optionally
 * forces it to disk, refuses it if somebody hard-linked it out meanwhile (link count above 1), then
 * {@code link(2)}s it to the final name: an existing entry there, a symbolic link included, is
 * reported and never replaced. The temporary is then removed and, for durable publications, the
 * directory forced; a failure of either is reported in the {@link Outcome}, never as a failure to
 * publish, since what is linked is published. {@link #replace} is the same temporary, renamed over
 * the target instead.
 *
 * <p>Temporaries are named {@code <target>.cryo-tmp.<pid>.<16 hex>}; {@link
 * #removeAbandoned} removes those whose writer is provably dead (a crash between the link and the
 * removal of the temporary leaves one behind). All methods are thread-safe.
 */
public final class Publication {

  /** Whether a publication must survive a crash of the machine. */
  public enum Durability {
    /** Content and directory entry are forced to disk before the publication returns. */
    DURABLE,
    /**
     * Nothing is forced. Right for lockfiles: a record a machine crash could lose names a holder of a
     * boot that is over, which is provably dead anyway.
     */
    VOLATILE
  }

  static final String TEMPORARY_MARK = ".cryo-tmp.";
  static final String ASIDE_MARK = ".cryo-aside.";
  private static final FileAttribute<?> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  private static final Set<OpenOption> CREATE_PRIVATE = Set.of(
      StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> CREATE_PRIVATE_READABLE = Set.of(
      StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
      LinkOption.NOFOLLOW_LINKS);
  private static final long PID = ProcessHandle.current().pid();
  private static final LazyLog LOG = new LazyLog(Publication.class);

  /** A test seam: a step of {@link #tryPublish}, told the target and the temporary. */
  interface LinkStep {
    void reached(Path target, Path temporary) throws IOException;
  }

  static final LinkStep NO_SEAM = (target, temporary) -> { };

  /** Called once the temporary is written whole, just before the link. */
  static volatile LinkStep beforeLink = NO_SEAM;

  /** Called right after a successful link, before the temporary is removed. */
  static volatile LinkStep afterLink = NO_SEAM;

  private Publication() {}

  /**
   * What a publication did. {@link #published} is what a caller acts on; the rest says what is true
   * beside it, since a failure after the {@code link(2)} (or the rename) cannot take back what is
   * published: a reader may already have seen it.
   *
   * @param published whether {@code content} is now at the target (by this call)
   * @param temporaryLeft the temporary this call could not remove, if any: it holds a copy of the
   *     content and goes with {@link #removeAbandoned} once this process is gone
   * @param notForced why the directory entry could not be forced to disk, for a durable
   *     publication: a machine crash may then lose it. No attempt is made to tell a file system
   *     that cannot force a directory ({@code EINVAL}) from a failed force ({@code EIO}): the JDK
   *     reports neither by type nor by number, and either way the entry is not known to be durable
   */
  public record Outcome(boolean published, Optional<Path> temporaryLeft,
      Optional<IOException> notForced) {

    /** Checks the fields. */
    public Outcome {
      Objects.requireNonNull(temporaryLeft, "temporaryLeft");
      Objects.requireNonNull(notForced, "notForced");
    }

    /** Whether nothing is left to say: no temporary left behind, and forced when asked to be. */
    public boolean complete() {
      return temporaryLeft.isEmpty() && notForced.isEmpty();
    }

    /** This outcome in words, for messages: {@code "published; not forced to disk (...)"}. */
    public String describe() {
      StringBuilder text = new StringBuilder(published ? "published" : "not published (an entry"
          + " was already there)");
      temporaryLeft.ifPresent(temporary -> text.append("; its temporary ").append(temporary)
          .append(" could not be removed (it is removed once this process is gone)"));
      notForced.ifPresent(e -> text.append("; the directory entry was not forced to disk (")
          .append(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
          .append("): a crash of the machine may lose it"));
      return text.toString();
    }
  }

  /**
   * Publishes {@code content} at {@code target} unless something is already there, and says what is
   * true afterwards.
   *
   * <p>Once the link is made, nothing throws: a temporary that cannot be removed, or a directory
   * that cannot be forced, is reported in the {@link Outcome}, never as a failure to publish.
   *
   * @return the outcome; {@link Outcome#published} is {@code false} when an entry (of any kind, a
   *     dangling symbolic link included) already exists at {@code target}, which is left untouched
   * @throws NoSuchFileException when the target's directory does not exist; nothing was published
   * @throws IOException when the file system refuses the write or the link; nothing was published,
   *     and the temporary was removed (a failure to remove it is attached as suppressed)
   */
  public static Outcome tryPublish(Path target, byte[] content, Durability durability)
      throws IOException {
    return link(target, writeTemporary(target, content, durability, false), durability);
  }

  /**
   * A file published by {@link #publishKept}, still open: its descriptor (readable and writable,
   * positioned nowhere in particular: read it with positional reads) and its identity, the device
   * and inode ({@link java.nio.file.attribute.BasicFileAttributes#fileKey}) it had when it was
   * linked. The caller owns the descriptor and closes it.
   *
   * @param channel the published file's descriptor
   * @param fileKey the published file's device and inode
   */
  record Kept(FileChannel channel, Object fileKey) {}

  /**
   * Publishes {@code content} at {@code target} as {@link #publishExclusive} does (never forced), and
   * keeps the published file open, so that its owner can check and remove it later through that
   * descriptor instead of opening it by name again (a lock's release).
   *
   * @param spare where a temporary that loses the link is kept, and taken from to be written again
   *     ({@link Spare}); {@code null}: none, a lost temporary is removed
   * @return the published file, or {@code null} when an entry (of any kind) already exists at
   *     {@code target}, which is left untouched (nothing is left open or behind but the spare)
   * @throws NoSuchFileException when the target's directory does not exist; nothing was published
   * @throws IOException when nothing was published because the file system refused
   */
  static Kept publishKept(Path target, byte[] content, Spare spare) throws IOException {
    Written written = spare == null ? null : spare.take(content);
    if (written == null) {
      written = writeTemporary(target, content, Durability.VOLATILE, true);
    }
    Outcome outcome;
    try {
      outcome = link(target, written, Durability.VOLATILE, spare);
    } catch (IOException | RuntimeException e) {
      closeQuietly(written.channel());
      throw e;
    }
    if (!outcome.complete()) {
      LOG.get().log(System.Logger.Level.WARNING, "{0}: {1}", target, outcome.describe());
    }
    if (!outcome.published()) {
      if (spare == null) {
        closeQuietly(written.channel());
      }
      return null;
    }
    return new Kept(written.channel(), written.fileKey());
  }

  /**
   * The temporary of a publication that lost its race to the link (the target was taken first),
   * kept open to be written again by the next publication to the same target: a contender who
   * loses the link then creates no file the next time it tries. It was never at the target, so no
   * reader of the target can have it open, and writing it again in place shows nobody a
   * half-written record; before it is linked, its name must still designate it, with one link.
   * At most one per holder of a {@code Spare}; the methods are synchronised, but a spare is meant
   * for one thread at a time (a lock slot's owner). {@link #discard} removes it (at the JVM's
   * exit, by {@link ProcessLock}); after a crash it is a temporary of a dead writer like any other
   * ({@link #removeAbandoned}).
   */
  static final class Spare {
    private Written written; // guarded by this; null: none kept

    /** Keeps {@code lost}, a temporary whose link failed; one kept before is discarded. */
    synchronized void keep(Written lost) {
      Written before = written;
      written = lost;
      if (before != null) {
        discard(before);
      }
    }

    /**
     * The kept temporary, holding {@code content} now (written in place, truncated to it, its
     * name checked to designate it with one link); {@code null} when none is kept or it cannot
     * be used (it is then discarded).
     */
    synchronized Written take(byte[] content) {
      Written kept = written;
      written = null;
      if (kept == null) {
        return null;
      }
      try {
        return Uninterruptible.call(() -> rewrite(kept, content));
      } catch (IOException e) {
        discard(kept);
        return null;
      }
    }

    /** Removes the kept temporary, if any. */
    synchronized void discard() {
      Written kept = written;
      written = null;
      if (kept != null) {
        discard(kept);
      }
    }

    /** Whether a temporary is kept (for tests). */
    synchronized boolean holdsOne() {
      return written != null;
    }

    private static Written rewrite(Written kept, byte[] content) throws IOException {
      FileChannel channel = kept.channel();
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer, buffer.position());
      }
      channel.truncate(content.length);
      Map<String, Object> attributes = Files.readAttributes(kept.temporary(), "unix:nlink,fileKey",
          LinkOption.NOFOLLOW_LINKS);
      if (!(attributes.get("nlink") instanceof Integer count) || count != 1
          || !Objects.equals(attributes.get("fileKey"), kept.fileKey())) {
        throw new IOException("the kept temporary " + kept.temporary() + " was linked or replaced");
      }
      return kept;
    }

    /** Closes the kept temporary, and removes its name while the name still designates it. */
    private static void discard(Written kept) {
      closeQuietly(kept.channel());
      try {
        if (Objects.equals(kept.fileKey(), Files.readAttributes(kept.temporary(),
            BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey())) {
          Files.deleteIfExists(kept.temporary());
        }
      } catch (NoSuchFileException e) {
        // removed already
      } catch (IOException e) {
        LOG.get().log(System.Logger.Level.DEBUG, "could not remove {0}: {1}", kept.temporary(), e);
      }
    }
  }

  /** Links a written temporary to {@code target}, then removes its name; see {@link #tryPublish}. */
  private static Outcome link(Path target, Written written, Durability durability)
      throws IOException {
    return link(target, written, durability, null);
  }

  /**
   * {@link #link(Path, Written, Durability)}; when the target is taken first and {@code spareOnLoss}
   * is given, the temporary is kept there, open and named, instead of removed.
   */
  private static Outcome link(Path target, Written written, Durability durability,
      Spare spareOnLoss) throws IOException {
    Path temporary = written.temporary();
    boolean published;
    try {
      beforeLink.reached(target, temporary);
      Files.createLink(target, temporary);
      published = true;
    } catch (FileAlreadyExistsException e) {
      published = false;
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException removal) {
        e.addSuppressed(removal);
      }
      throw e;
    }
    if (published) {
      afterLink.reached(target, temporary);
    } else if (spareOnLoss != null) {
      spareOnLoss.keep(written);
      return new Outcome(false, Optional.empty(), Optional.empty());
    }
    // From here on what is published stays published: failures are reported, never thrown.
    Optional<Path> left = Optional.empty();
    try {
      Files.deleteIfExists(temporary);
    } catch (IOException e) {
      left = Optional.of(temporary);
    }
    Optional<IOException> notForced = Optional.empty();
    if (published && durability == Durability.DURABLE) {
      notForced = forceDirectory(target.getParent());
    }
    return new Outcome(published, left, notForced);
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing was published through it, or what was stays published
    }
  }

  /**
   * Publishes {@code content} at {@code target} unless something is already there: {@link
   * #tryPublish}, with what it has to add beside the answer (a temporary left, a directory not
   * forced) logged as a warning. Callers that must know whether a durable publication was forced
   * call {@link #tryPublish}.
   *
   * @return {@code true} when published; {@code false} when an entry (of any kind, a dangling
   *     symbolic link included) already exists at {@code target}, which is left untouched
   * @throws NoSuchFileException when the target's directory does not exist
   * @throws IOException when nothing was published because the file system refused the write
   */
  public static boolean publishExclusive(Path target, byte[] content, Durability durability)
      throws IOException {
    Outcome outcome = tryPublish(target, content, durability);
    if (!outcome.complete()) {
      LOG.get().log(System.Logger.Level.WARNING, "{0}: {1}", target, outcome.describe());
    }
    return outcome.published();
  }

  /**
   * Replaces whatever is at {@code target} with {@code content} in one atomic rename: a reader sees
   * the old content or the new, never a mix. The rename replaces the name, never the file a
   * symbolic link there points to. Once the rename is made nothing throws: a directory that could
   * not be forced is reported in the outcome.
   *
   * @return the outcome, {@link Outcome#published} always {@code true}
   * @throws IOException when nothing was replaced (the temporary was removed)
   */
  public static Outcome replace(Path target, byte[] content, Durability durability)
      throws IOException {
    Path temporary = writeTemporary(target, content, durability, false).temporary();
    try {
      Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException removal) {
        e.addSuppressed(removal);
      }
      throw e;
    }
    Optional<IOException> notForced = durability == Durability.DURABLE
        ? forceDirectory(target.getParent()) : Optional.empty();
    return new Outcome(true, Optional.empty(), notForced);
  }

  /**
   * Removes the temporaries and aside links left in {@code directory} for {@code targetName} by
   * processes of this machine that are provably gone. Those of live processes are left alone.
   *
   * <p>Anybody who may write in the directory can create names of that shape, so a name is
   * removed only when it is what this class creates: a regular file (looked at without following
   * a link), whose name holds a pid that can be a process id (a number in range) of a process that
   * is gone. Anything else (a directory, a FIFO, a link, a pid out of range) is left alone, and a
   * single entry that cannot be looked at or removed does not stop the others from being cleaned.
   *
   * @return how many were removed
   * @throws IOException when the directory cannot be listed ({@link
   *     java.nio.file.NotDirectoryException} at once when something else than a directory, a FIFO
   *     among them, is at its name)
   */
  public static int removeAbandoned(Path directory, String targetName, ProcessTable table)
      throws IOException {
    int removed = 0;
    String prefix = targetName + ".cryo-";
    try (DirectoryStream<Path> entries = DirectoryListing.open(directory, // never a FIFO's open
        entry -> entry.getFileName().toString().startsWith(prefix))) {
      for (Path entry : entries) {
        OptionalLong writer = writerOf(entry.getFileName().toString(), targetName);
        if (writer.isPresent() && table.startOf(writer.getAsLong()).isEmpty()
            && removeIfRegular(entry)) {
          removed++;
        }
      }
    } catch (NoSuchFileException e) {
      return removed;
    }
    return removed;
  }

  /** The pid in the name of a side file of {@code targetName}, when it is one and the pid can be. */
  static OptionalLong writerOf(String fileName, String targetName) {
    int digits = pidStart(fileName);
    if (digits < 0 || digits - markBefore(fileName, digits) != targetName.length()
        || !fileName.startsWith(targetName)) {
      return OptionalLong.empty();
    }
    try {
      long pid = Long.parseLong(fileName, digits, fileName.length() - 17, 10);
      return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty(); // 19 digits past Long.MAX_VALUE: no process has that pid
    }
  }

  private static boolean removeIfRegular(Path entry) {
    try {
      if (!Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .isRegularFile()) {
        return false;
      }
      return Files.deleteIfExists(entry);
    } catch (IOException e) {
      LOG.get().log(System.Logger.Level.DEBUG, "left {0} in place: {1}", entry, e);
      return false;
    }
  }

  /** Whether {@code fileName} is a temporary or aside link of this class. */
  public static boolean isSideFile(String fileName) {
    return pidStart(fileName) >= 0;
  }

  /**
   * Where the pid starts in a side file's name, {@code <target><mark><pid>.<16 hex>} with a
   * non-empty target without line terminators, a mark of this class and a pid of 1 to 19 digits;
   * -1 for any other name. (Read from the end: the pid is the whole run of digits before the dot,
   * so there is one way to read a name.)
   */
  private static int pidStart(String name) {
    int dot = name.length() - 17;
    if (dot < 1 || name.charAt(dot) != '.') {
      return -1;
    }
    for (int i = dot + 1; i < name.length(); i++) {
      char c = name.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return -1;
      }
    }
    int digits = dot;
    while (digits > 0 && name.charAt(digits - 1) >= '0' && name.charAt(digits - 1) <= '9') {
      digits--;
    }
    if (digits == dot || dot - digits > 19) {
      return -1;
    }
    int mark = markBefore(name, digits);
    int target = digits - mark;
    if (mark < 0 || target < 1) {
      return -1;
    }
    for (int i = 0; i < target; i++) {
      char c = name.charAt(i);
      if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
        return -1; // what '.' of a regular expression does not match
      }
    }
    return digits;
  }

  /** The length of the mark of this class ending at {@code end} in {@code name}, or -1. */
  private static int markBefore(String name, int end) {
    return name.startsWith(TEMPORARY_MARK, end - TEMPORARY_MARK.length()) ? TEMPORARY_MARK.length()
        : name.startsWith(ASIDE_MARK, end - ASIDE_MARK.length()) ? ASIDE_MARK.length() : -1;
  }

  /** A fresh, unused name beside {@code target}, marked with {@code mark} and this pid. */
  static Path sibling(Path target, String mark) {
    // Unique, not secret: the pid tells processes apart, 64 random bits the calls of one process.
    // A name somebody else planted only makes the exclusive create fail; it is never followed.
    return target.resolveSibling(target.getFileName() + mark + PID + "."
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
  }

  /**
   * A temporary written whole: its name, its identity (device and inode), and its descriptor when
   * it was asked to be kept open (else {@code null}).
   */
  private record Written(Path temporary, FileChannel channel, Object fileKey) {}

  /**
   * Writes a fresh temporary holding {@code content}; one unit of work that leaves nothing behind
   * when it fails, so that an interrupt in the middle repeats it whole ({@link Uninterruptible}).
   * When {@code keep}, the temporary is opened for reading as well, and its descriptor stays open.
   */
  private static Written writeTemporary(Path target, byte[] content, Durability durability,
      boolean keep) throws IOException {
    return Uninterruptible.call(() -> writeTemporaryOnce(target, content, durability, keep));
  }

  private static Written writeTemporaryOnce(Path target, byte[] content, Durability durability,
      boolean keep) throws IOException {
    Path temporary = sibling(target, TEMPORARY_MARK);
    boolean complete = false;
    FileChannel channel = FileChannel.open(temporary, keep ? CREATE_PRIVATE_READABLE
        : CREATE_PRIVATE, PRIVATE_FILE);
    try {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      if (durability == Durability.DURABLE) {
        channel.force(true);
      }
      // One lstat for both: the link count, and the identity a kept descriptor is known by.
      Map<String, Object> attributes =
          Files.readAttributes(temporary, "unix:nlink,fileKey", LinkOption.NOFOLLOW_LINKS);
      if (attributes.get("nlink") instanceof Integer count && count > 1) {
        channel.truncate(0);
        throw new IOException("the temporary " + temporary + " was hard-linked elsewhere while it"
            + " was written; nothing was published: find who links files in " + target.getParent());
      }
      complete = true;
      return new Written(temporary, keep ? channel : null, attributes.get("fileKey"));
    } finally {
      if (!complete || !keep) {
        try {
          channel.close();
        } finally {
          if (!complete) {
            Files.deleteIfExists(temporary);
          }
        }
      }
    }
  }

  /** Forces {@code directory}'s entries to disk; the failure, if it could not. */
  private static Optional<IOException> forceDirectory(Path directory) {
    try {
      Uninterruptible.call(() -> {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
          channel.force(true);
        }
        return null;
      });
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e);
    }
  }
}
