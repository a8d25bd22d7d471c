package dev.cryo.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.ProcessLock;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CryoLockFactoryTest {

  @TempDir Path root;
  FSDirectory directory;

  @BeforeEach
  void open() throws Exception {
    directory = new NIOFSDirectory(root.resolve("index"), NoLockFactory.INSTANCE);
  }

  @AfterEach
  void close() throws Exception {
    directory.close();
  }

  @Test
  void eachLockNameLivesInItsOwnSubDirectory() throws Exception {
    try (Lock lock = CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock")) {
      lock.ensureValid();
      Path lockFile = root.resolve("index").resolve("write.lock.d").resolve(ProcessLock.FILE_NAME);
      assertThat(Files.readString(lockFile)).contains("holder lucene write.lock\n");
    }
    assertThat(root.resolve("index/write.lock.d")).isEmptyDirectory();
  }

  @Test
  void aSecondObtainInTheSameJvmIsRefusedEvenOnTheSameThread() throws Exception {
    try (Lock lock = CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock")) {
      assertThatThrownBy(() -> new CryoLockFactory().obtainLock(directory, "write.lock"))
          .isInstanceOf(LockObtainFailedException.class)
          .hasMessageContaining("held by this virtual machine");
      lock.ensureValid();
    }
    CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock").close();
  }

  @Test
  void aLiveForeignHolderIsRefusedWithItsName() throws Exception {
    Path lockDirectory = Files.createDirectories(root.resolve("index/write.lock.d"));
    Files.writeString(lockDirectory.resolve(ProcessLock.FILE_NAME), "1\n");

    assertThatThrownBy(() -> CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock"))
        .isInstanceOf(LockObtainFailedException.class)
        .hasMessageContaining("held by another program")
        .hasMessageContaining("pid 1");
    assertThat(Files.readString(lockDirectory.resolve(ProcessLock.FILE_NAME))).isEqualTo("1\n");
  }

  @Test
  void ensureValidFailsOnceTheRecordIsGoneOrTheLockClosed() throws Exception {
    Lock lock = CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock");
    Path lockFile = root.resolve("index/write.lock.d").resolve(ProcessLock.FILE_NAME);
    Files.delete(lockFile);

    assertThatThrownBy(lock::ensureValid).isInstanceOf(AlreadyClosedException.class)
        .hasMessageContaining("no longer ours").hasMessageContaining("absent");

    lock.close();
    assertThatThrownBy(lock::ensureValid).isInstanceOf(AlreadyClosedException.class)
        .hasMessageContaining("already released");
  }

  @Test
  void ensureValidFailsWhenAnotherRecordReplacedOurs() throws Exception {
    try (Lock lock = CryoLockFactory.INSTANCE.obtainLock(directory, "write.lock")) {
      Path lockFile = root.resolve("index/write.lock.d").resolve(ProcessLock.FILE_NAME);
      Files.writeString(lockFile, "1\n");

      assertThatThrownBy(lock::ensureValid).isInstanceOf(AlreadyClosedException.class)
          .hasMessageContaining("held by pid 1");
    }
    // The foreign record was left in place by the release.
    assertThat(Files.readString(root.resolve("index/write.lock.d/.lock"))).isEqualTo("1\n");
  }

  @Test
  void aLockDirectoryRemovedMeanwhileIsMadeAgain() throws Exception {
    CryoLockFactory.INSTANCE.obtainLock(directory, "gone.lock").close();
    Path lockDirectory = root.resolve("index/gone.lock.d");
    Files.delete(lockDirectory);

    try (Lock lock = CryoLockFactory.INSTANCE.obtainLock(directory, "gone.lock")) {
      lock.ensureValid();
      assertThat(lockDirectory.resolve(ProcessLock.FILE_NAME)).exists();
    }
  }

  @Test
  void lockNamesThatWouldLeaveTheDirectoryAreRefused() {
    for (String name : new String[] {"", ".", "..", "a/b", "../x"}) {
      assertThatThrownBy(() -> CryoLockFactory.INSTANCE.obtainLock(directory, name))
          .as(name).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
