package dev.cryo.lock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.Map;
import java.util.Objects;

/**
 * Whether the entries of a directory can be changed by nobody but this process's user and root:
 * the condition under which a file in it may be opened read-only without the risk of blocking.
 *
 * <p>Opening a FIFO read-only blocks until a writer comes; opening it read-write never blocks (the
 * opener is its own writer), which is why cryo opens the files it reads read-write. When that is
 * refused (the file is another user's, or the mount is read-only) the only other open is read-only,
 * and the JDK offers no {@code O_NONBLOCK}: a FIFO swapped in between the refused open and the
 * read-only one would block the reader for good. Nothing but the directory's writers can swap an
 * entry, so the read-only open is made only when they are this user or root, whom the process
 * trusts anyway (they can signal, trace or replace it): the directory is owned by one of them and
 * is writable neither by its group nor by others. A read-only mount does not count as safe by
 * itself: a bind mount may be read-only while the directory stays writable elsewhere.
 *
 * <p>The directory is judged as the caller holds it (an open {@link SecureDirectoryStream}): its
 * owner and mode are read by path in one {@code stat}, which must name the same device and inode
 * as the held stream, or it is not trusted. A sticky directory writable by others (such as
 * {@code /tmp}) is not trusted: an entry's owner may still swap it. Access control lists are
 * covered by the mode's group bits (the mask). Thread-safe.
 */
public final class DirectoryTrust {

  private static final int GROUP_OR_OTHERS_WRITE = 0022;
  private static volatile int accessUid = -2; // -2: not read yet; -1: unknown

  private DirectoryTrust() {}

  /**
   * Whether nobody but this process's user and root may add, remove or rename entries of the
   * directory {@code directory} holds, which {@code path} names.
   *
   * @param directory the open directory
   * @param path the path the directory was opened by; when it now names another directory (or
   *     nothing), the answer is {@code false}
   */
  public static boolean onlyThisUserOrRootMayChange(SecureDirectoryStream<Path> directory,
      Path path) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(path, "path");
    try {
      Object held = directory.getFileAttributeView(BasicFileAttributeView.class)
          .readAttributes().fileKey();
      Map<String, Object> named = Files.readAttributes(path, "unix:*");
      if (held == null || !held.equals(named.get("fileKey"))
          || !(named.get("uid") instanceof Integer uid)
          || !(named.get("mode") instanceof Integer mode)) {
        return false;
      }
      int me = accessUid();
      return (uid == 0 || (me >= 0 && uid == me)) && (mode & GROUP_OR_OTHERS_WRITE) == 0;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The user id the kernel checks file access with (the file-system uid, fourth on the
   * {@code Uid:} line of {@code /proc/self/status}), or {@code -1} when it cannot be read: the
   * user whose files this process may treat as its own.
   */
  public static int accessUid() {
    int known = accessUid;
    if (known != -2) {
      return known;
    }
    int uid = -1;
    try {
      for (String line : Uninterruptible.call(() -> Files.readAllLines(
          Path.of("/proc/self/status"), StandardCharsets.ISO_8859_1))) {
        if (line.startsWith("Uid:")) {
          String[] ids = line.substring(4).strip().split("\\s+");
          uid = Integer.parseInt(ids[ids.length >= 4 ? 3 : 0]);
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      uid = -1;
    }
    accessUid = uid;
    return uid;
  }
}
