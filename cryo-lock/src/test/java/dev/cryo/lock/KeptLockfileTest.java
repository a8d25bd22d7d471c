package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A held {@link ProcessLock} keeps the lockfile it published open, and its release and {@link
 * ProcessLock#isIntact} go through that descriptor; what the name designates still decides, by
 * name as before, whenever the descriptor cannot (closed meanwhile, or another file at the name).
 */
class KeptLockfileTest {

  @TempDir Path root;

  @Test
  void aHeldLockKeepsItsLockfileOpenAndItsReleaseClosesIt() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO);
    Object key = Files.readAttributes(lock.lockFile(), BasicFileAttributes.class).fileKey();
    assertThat(Inodes.descriptors(key)).as("descriptors of the lockfile while held").isEqualTo(1);
    assertThat(lock.isIntact()).isTrue();
    assertThat(Inodes.descriptors(key)).isEqualTo(1);

    lock.close();
    assertThat(lock.lockFile()).doesNotExist();
    assertThat(Inodes.descriptors(key)).as("descriptors of the lockfile once released").isZero();
  }

  @Test
  void aLockWhoseDescriptorWasClosedIsStillCheckedAndReleasedByName() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO);
    lock.closeKeptDescriptor();
    assertThat(lock.isIntact()).isTrue();
    lock.close();
    assertThat(lock.lockFile()).doesNotExist();
  }

  @Test
  void aCopyOfOurRecordPutAtTheNameIsStillOursAndReleased() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO);
    Path copy = Files.copy(lock.lockFile(), directory.resolve("copy"));
    Files.move(copy, lock.lockFile(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    assertThat(lock.isIntact()).isTrue();
    lock.close();
    assertThat(lock.lockFile()).doesNotExist();
  }

  @Test
  void ourFileRewrittenInPlaceWithAnotherRecordIsLeftAtTheRelease() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO);
    LockRecord other = LockRecord.fresh(ProcessTable.system().current(), "another holder");
    Files.write(lock.lockFile(), other.toBytes()); // the same inode, truncated and rewritten
    assertThat(lock.isIntact()).isFalse();
    lock.close();
    assertThat(Files.readAllBytes(lock.lockFile())).isEqualTo(other.toBytes());
    Files.delete(lock.lockFile());
  }

  @Test
  void aRealPathReplacedByALinkIsResolvedAgain() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run")).toRealPath();
    ProcessLock.acquire(directory, Duration.ZERO).close();
    Path elsewhere = Files.createDirectory(root.resolve("elsewhere")).toRealPath();
    Files.move(directory, root.resolve("moved"));
    Files.createSymbolicLink(directory, elsewhere);

    assertThat(ProcessLock.lockFileOf(directory))
        .isEqualTo(elsewhere.resolve(ProcessLock.FILE_NAME));
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO)) {
      assertThat(lock.lockFile()).isEqualTo(elsewhere.resolve(ProcessLock.FILE_NAME));
      assertThat(elsewhere.resolve(ProcessLock.FILE_NAME)).exists();
    }
  }
}
