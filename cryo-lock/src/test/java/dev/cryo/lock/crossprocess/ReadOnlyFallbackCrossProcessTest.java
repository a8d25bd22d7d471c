package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.cryo.lock.ReadOnlyOpenMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lockfile that may be read but not written (another user's file, or a read-only mount) is read
 * read-only only when nobody but the reader's user and root can change its directory: otherwise a
 * FIFO swapped in between the refused read-write open and the read-only one would block the reader
 * forever (while it holds a JVM-wide guard).
 *
 * <p>Real users and real mounts: the child JVM runs as another user ({@code setpriv}), or as root in
 * its own mount namespace where the directory is bind-mounted read-only ({@code unshare}); the swap
 * is made by this JVM (root), as the directory's owner could, right when the child says its
 * read-write open was refused. Needs root; skipped otherwise.
 */
class ReadOnlyFallbackCrossProcessTest {

  private static final int OWNER = 65534;
  private static final int READER = 65533;
  private static final Duration BOUND = Duration.ofSeconds(30);

  @TempDir Path root;

  @BeforeEach
  void needsRoot() throws IOException {
    assumeThat(Files.getAttribute(Path.of("/proc/self"), "unix:uid")).isEqualTo(0);
    assumeThat(Files.isExecutable(Path.of("/usr/bin/setpriv"))).isTrue();
    assumeThat(Files.isExecutable(Path.of("/usr/bin/unshare"))).isTrue();
    // Other users must reach the directory and the test classes.
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** A directory owned by {@code owner} (mode 0755) holding a lockfile owned by the same, 0644. */
  private Path lockfileOwnedBy(String name, int owner) throws Exception {
    Path dir = Files.createDirectory(root.resolve(name));
    Path lock = Files.writeString(dir.resolve(".lock"), "cryo-lock 1\npid 1\n");
    Files.setPosixFilePermissions(lock, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setAttribute(lock, "unix:uid", owner);
    Files.setAttribute(dir, "unix:uid", owner);
    return lock;
  }

  private static List<String> asUser(int uid) {
    return List.of("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups");
  }

  private static List<String> onAReadOnlyBindMountOf(Path dir) {
    return List.of("unshare", "-m", "sh", "-c", "mount --make-rprivate / && mount --bind \"$0\""
        + " \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\"", dir.toString());
  }

  /** Reads {@code lock} in a child started through {@code wrapper}; swaps a FIFO in if asked. */
  private String readInChild(List<String> wrapper, Path lock, boolean swapInAFifo)
      throws Exception {
    try (ChildJvm child = ChildJvm.start("reader", wrapper, ReadOnlyOpenMain.class,
        List.of(lock.toString()))) {
      child.awaitLine("@REFUSED", BOUND);
      if (swapInAFifo) {
        Files.delete(lock);
        Process mkfifo = new ProcessBuilder("mkfifo", "-m", "644", lock.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        Files.setAttribute(lock, "unix:uid", OWNER);
      }
      child.send("go");
      String read = child.awaitLine("@READ", BOUND);
      assertThat(child.awaitExit(BOUND)).isZero();
      return read;
    }
  }

  @Test
  void anotherUsersFileInADirectoryTheyMayChangeIsNotOpenedReadOnly() throws Exception {
    Path lock = lockfileOwnedBy("theirs", OWNER);

    String read = readInChild(asUser(READER), lock, true);

    assertThat(read).startsWith("Unreadable").contains("not opened read-only");
  }

  @Test
  void aFileOnAReadOnlyMountInADirectoryAnotherUserMayChangeIsNotOpenedReadOnly()
      throws Exception {
    Path lock = lockfileOwnedBy("mounted", OWNER);

    String read = readInChild(onAReadOnlyBindMountOf(lock.getParent()), lock, true);

    assertThat(read).startsWith("Unreadable").contains("not opened read-only");
  }

  @Test
  void anotherUsersFileInTheReadersOwnDirectoryIsReadReadOnly() throws Exception {
    Path lock = lockfileOwnedBy("mine", OWNER);
    Files.setAttribute(lock.getParent(), "unix:uid", READER);

    String read = readInChild(asUser(READER), lock, false);

    assertThat(read).startsWith("Present"); // read read-only
  }

  @Test
  void aFileOnAReadOnlyMountInRootsOwnDirectoryIsReadReadOnly() throws Exception {
    Path lock = lockfileOwnedBy("rootmount", 0);

    String read = readInChild(onAReadOnlyBindMountOf(lock.getParent()), lock, false);

    assertThat(read).startsWith("Present");
  }

  /**
   * The C library words its errors in the reader's language: a read-only mount must be recognised
   * without reading the message ("Das Dateisystem ist nur lesbar" in German).
   */
  @Test
  void aFileOnAReadOnlyMountIsReadWhateverTheLanguageOfErrors() throws Exception {
    List<String> german = GermanLocale.in(root);
    assumeThat(german).as("a German locale can be compiled here").isNotEmpty();
    Path lock = lockfileOwnedBy("german", 0);
    List<String> wrapper = new java.util.ArrayList<>(german);
    wrapper.addAll(onAReadOnlyBindMountOf(lock.getParent()));

    String read = readInChild(wrapper, lock, false);

    assertThat(read).startsWith("Present");
  }
}
