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
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Publishing a file so that a reader sees it complete or not at all.
 *
 * <p>{@link #publishExclusive} writes the content into a uniquely named temporary in the target's own
 * directory (exclusive create, never following a link, mode 0600), writes it whole, optionally
 * forces it to disk, refuses it if somebody hard-linked it out meanwhile (link count above 1), then
 * {@code link(2)}s it to the final name: an existing entry there, a symbolic link included, is
 * reported and never replaced. The temporary is then removed and, for durable publications, the
 * directory forced. {@link #replace} is the same temporary, renamed over the target instead.
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
  private static final Pattern SIDE_FILE =
      Pattern.compile("(.+)(\\.cryo-tmp\\.|\\.cryo-aside\\.)([0-9]{1,19})\\.[0-9a-f]{16}");
  private static final FileAttribute<?> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  private static final Set<OpenOption> CREATE_PRIVATE = Set.of(
      StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  private static final long PID = ProcessHandle.current().pid();
  private static final System.Logger LOG = System.getLogger(Publication.class.getName());

  private Publication() {}

  /**
   * Publishes {@code content} at {@code target} unless something is already there.
   *
   * @return {@code true} when published; {@code false} when an entry (of any kind, a dangling
   *     symbolic link included) already exists at {@code target}, which is left untouched
   * @throws NoSuchFileException when the target's directory does not exist
   * @throws IOException when the file system refuses the write; no temporary is left behind
   */
  public static boolean publishExclusive(Path target, byte[] content, Durability durability)
      throws IOException {
    Path temporary = writeTemporary(target, content, durability);
    try {
      Files.createLink(target, temporary);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } finally {
      Files.deleteIfExists(temporary);
      if (durability == Durability.DURABLE) {
        forceDirectory(target.getParent());
      }
    }
  }

  /**
   * Replaces whatever is at {@code target} with {@code content} in one atomic rename: a reader sees
   * the old content or the new, never a mix. The rename replaces the name, never the file a
   * symbolic link there points to.
   */
  public static void replace(Path target, byte[] content, Durability durability)
      throws IOException {
    Path temporary = writeTemporary(target, content, durability);
    try {
      Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temporary);
    }
    if (durability == Durability.DURABLE) {
      forceDirectory(target.getParent());
    }
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
   * @throws IOException when the directory cannot be listed
   */
  public static int removeAbandoned(Path directory, String targetName, ProcessTable table)
      throws IOException {
    int removed = 0;
    String prefix = targetName + ".cryo-";
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory,
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
    Matcher side = SIDE_FILE.matcher(fileName);
    if (!side.matches() || !side.group(1).equals(targetName)) {
      return OptionalLong.empty();
    }
    try {
      long pid = Long.parseLong(side.group(3));
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
      LOG.log(System.Logger.Level.DEBUG, "left {0} in place: {1}", entry, e);
      return false;
    }
  }

  /** Whether {@code fileName} is a temporary or aside link of this class. */
  public static boolean isSideFile(String fileName) {
    return SIDE_FILE.matcher(fileName).matches();
  }

  /** A fresh, unused name beside {@code target}, marked with {@code mark} and this pid. */
  static Path sibling(Path target, String mark) {
    // Unique, not secret: the pid tells processes apart, 64 random bits the calls of one process.
    // A name somebody else planted only makes the exclusive create fail; it is never followed.
    return target.resolveSibling(target.getFileName() + mark + PID + "."
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
  }

  /**
   * Writes a fresh temporary holding {@code content}; one unit of work that leaves nothing behind
   * when it fails, so that an interrupt in the middle repeats it whole ({@link Uninterruptible}).
   */
  private static Path writeTemporary(Path target, byte[] content, Durability durability)
      throws IOException {
    return Uninterruptible.call(() -> writeTemporaryOnce(target, content, durability));
  }

  private static Path writeTemporaryOnce(Path target, byte[] content, Durability durability)
      throws IOException {
    Path temporary = sibling(target, TEMPORARY_MARK);
    boolean complete = false;
    try (FileChannel channel = FileChannel.open(temporary, CREATE_PRIVATE, PRIVATE_FILE)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      if (durability == Durability.DURABLE) {
        channel.force(true);
      }
      Object links = Files.getAttribute(temporary, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
      if (links instanceof Integer count && count > 1) {
        channel.truncate(0);
        throw new IOException("the temporary " + temporary + " was hard-linked elsewhere while it"
            + " was written; nothing was published: find who links files in " + target.getParent());
      }
      complete = true;
    } finally {
      if (!complete) {
        Files.deleteIfExists(temporary);
      }
    }
    return temporary;
  }

  private static void forceDirectory(Path directory) throws IOException {
    try {
      Uninterruptible.call(() -> {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
          channel.force(true);
        }
        return null;
      });
    } catch (IOException e) {
      // Some file systems cannot force a directory (EINVAL); the entry is then as safe as they allow.
      if (!"Invalid argument".equals(e.getMessage())) {
        throw e;
      }
    }
  }
}
