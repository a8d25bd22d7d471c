package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ProcessLock#lockFileOf} remembers a directory's real path by its identity, and never uses
 * it once it no longer names that directory; {@link ProcessLock#isIntact} tells a held record from
 * one that was removed or replaced.
 */
class RememberedDirectoryTest {

  @TempDir Path root;

  @Test
  void aDirectoryMovedBehindALinkIsResolvedAgain() throws Exception {
    Path first = Files.createDirectory(root.resolve("first"));
    Path link = Files.createSymbolicLink(root.resolve("link"), first);
    try (ProcessLock lock = ProcessLock.acquire(link, Duration.ZERO)) {
      assertThat(lock.lockFile()).isEqualTo(first.toRealPath().resolve(ProcessLock.FILE_NAME));
    }

    // The same directory (same inode) under another name, the link following it; a new
    // directory where it was.
    Path moved = Files.move(first, root.resolve("moved"));
    Files.delete(link);
    Files.createSymbolicLink(link, moved);
    Files.createDirectory(first);

    assertThat(ProcessLock.lockFileOf(link))
        .isEqualTo(moved.toRealPath().resolve(ProcessLock.FILE_NAME));
    try (ProcessLock lock = ProcessLock.acquire(link, Duration.ZERO)) {
      assertThat(lock.lockFile()).isEqualTo(moved.toRealPath().resolve(ProcessLock.FILE_NAME));
      assertThat(moved.resolve(ProcessLock.FILE_NAME)).exists();
      assertThat(first.resolve(ProcessLock.FILE_NAME)).doesNotExist();
    }
  }

  @Test
  void everySpellingStillNamesOneLockfile() throws Exception {
    Path directory = Files.createDirectories(root.resolve("a/b"));
    Path link = Files.createSymbolicLink(root.resolve("to-b"), directory);
    Path real = directory.toRealPath().resolve(ProcessLock.FILE_NAME);
    for (int i = 0; i < 3; i++) {
      assertThat(ProcessLock.lockFileOf(directory)).isEqualTo(real);
      assertThat(ProcessLock.lockFileOf(link)).isEqualTo(real);
      assertThat(ProcessLock.lockFileOf(root.resolve("a/b/../b"))).isEqualTo(real);
      assertThat(ProcessLock.lockFileOf(link.resolve(".."))).isEqualTo(
          root.resolve("a").toRealPath().resolve(ProcessLock.FILE_NAME));
    }
  }

  @Test
  void isIntactWhileTheRecordIsOursOnly() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO);
    assertThat(lock.isIntact()).isTrue();

    Path lockFile = lock.lockFile();
    byte[] ours = Files.readAllBytes(lockFile);
    Files.writeString(lockFile, "1\n");
    assertThat(lock.isIntact()).isFalse();
    Files.write(lockFile, ours);
    assertThat(lock.isIntact()).isTrue();
    Files.delete(lockFile);
    assertThat(lock.isIntact()).isFalse();
    Files.write(lockFile, ours);

    lock.close();
    assertThat(lock.isIntact()).isFalse();
    assertThat(lockFile).doesNotExist();
  }
}
