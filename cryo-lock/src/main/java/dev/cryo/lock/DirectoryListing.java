package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Listing a directory by its path without ever blocking on a FIFO at that path. The JDK opens a
 * directory to list read-only and without {@code O_NONBLOCK}, and a read-only open of a FIFO waits
 * for a writer, for good when none comes; so the directory is listed as {@code PATH/.}, a name the
 * kernel resolves only when a directory stands at {@code PATH}: a FIFO (or any other file) there,
 * planted before the call or swapped in during it, is refused with {@code ENOTDIR} and never
 * opened. A symbolic link at {@code PATH} is followed, as a plain listing follows it; whoever must
 * not follow one opens the directory with {@link NoFollowDirectory} instead.
 *
 * <p>The entries are named {@code PATH/./NAME}, which resolve where {@code PATH/NAME} does. On Linux
 * the stream is a {@link java.nio.file.SecureDirectoryStream}. Stateless and thread-safe.
 */
public final class DirectoryListing {

  /** What is appended to a path to list it; {@link Path#resolve} keeps it as given. */
  private static final String SELF = ".";

  private DirectoryListing() {}

  /**
   * Opens the directory at {@code directory} to list every entry in it.
   *
   * @return the open listing; the caller closes it
   * @throws java.nio.file.NoSuchFileException when nothing is there
   * @throws java.nio.file.NotDirectoryException when something else than a directory is there
   * @throws IOException when the file system refuses
   */
  public static DirectoryStream<Path> open(Path directory) throws IOException {
    return open(directory, entry -> true);
  }

  /** As {@link #open(Path)}, with only the entries {@code filter} accepts. */
  public static DirectoryStream<Path> open(Path directory,
      DirectoryStream.Filter<? super Path> filter) throws IOException {
    Objects.requireNonNull(directory, "directory");
    return Files.newDirectoryStream(directory.resolve(SELF), filter);
  }
}
