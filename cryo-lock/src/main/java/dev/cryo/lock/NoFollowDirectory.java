package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Opening a directory by its path as a descriptor to work relative to, never through a symbolic
 * link in the path's last component: what lets a holder keep to the folder it took, whatever is
 * later swapped in at the folder's name.
 *
 * <p>The directory is opened (which follows a link), then its descriptor is compared with a look
 * at the name that does not follow one ({@code fstat} against {@code lstat}): the name must be a
 * real directory, and the same one. Directories cannot be hard-linked, so an equal device and
 * inode prove that the descriptor is the directory that was at the name, not a link's target.
 *
 * <p>No open blocks on a FIFO: the directory is opened through {@link DirectoryListing}, as
 * {@code PATH/.}, which the kernel resolves only when a directory stands at {@code PATH}. Stateless
 * and thread-safe.
 */
public final class NoFollowDirectory {

  private NoFollowDirectory() {}

  /**
   * Opens {@code path}, a directory, for work relative to it.
   *
   * @return the open directory; the caller closes it
   * @throws java.nio.file.NoSuchFileException when nothing is there
   * @throws NotDirectoryException when something else is there (a symbolic link among them, even
   *     to a directory), or the name changed while it was opened; the message says what
   * @throws IOException when the file system refuses, or offers no relative operations
   */
  public static SecureDirectoryStream<Path> open(Path path) throws IOException {
    return openKeyed(path).directory();
  }

  /** The refusal of a name at which something else than a directory stands, saying what is there. */
  private static NotDirectoryException notADirectory(Path path, NotDirectoryException cause) {
    String kind;
    try {
      BasicFileAttributes found =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      kind = found.isRegularFile() ? "a regular file" : LockFile.kindOf(path, found);
    } catch (IOException e) {
      kind = "not a directory any more";
    }
    NotDirectoryException refused = new NotDirectoryException(path + " is " + kind
        + ", not a directory; it was not opened");
    refused.initCause(cause);
    return refused;
  }

  /** A directory opened by {@link #openKeyed}, and its device and inode. */
  record Opened(SecureDirectoryStream<Path> directory, Object fileKey) {}

  /**
   * Opens {@code path} as {@link #open} does, and answers the directory's identity with it (the
   * open has read it already): what a holder keeps to recognise its folder later without a look.
   *
   * @throws java.nio.file.NoSuchFileException, NotDirectoryException, IOException as {@link #open}
   */
  static Opened openKeyed(Path path) throws IOException {
    Objects.requireNonNull(path, "path");
    DirectoryStream<Path> stream;
    try {
      stream = DirectoryListing.open(path);
    } catch (NotDirectoryException e) {
      throw notADirectory(path, e);
    } catch (NoSuchFileException e) {
      NoSuchFileException named = new NoSuchFileException(path.toString());
      named.initCause(e);
      throw named;
    }
    boolean kept = false;
    try {
      if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
        throw new IOException("this platform offers no relative directory operations for "
            + path + "; cryo needs them (Linux, macOS)");
      }
      Object held = secure.getFileAttributeView(BasicFileAttributeView.class).readAttributes()
          .fileKey();
      BasicFileAttributes named =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!named.isDirectory()) {
        throw new NotDirectoryException(path + " is " + LockFile.kindOf(path, named)
            + ", not a directory; it was not followed");
      }
      if (held == null || !held.equals(named.fileKey())) {
        throw new NotDirectoryException(path + " changed while it was opened (another directory,"
            + " or a link, was put at its name); nothing was done in it");
      }
      kept = true;
      return new Opened(secure, held);
    } finally {
      if (!kept) {
        stream.close();
      }
    }
  }
}
