package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pid reuse, with a real live process (a {@code sleep}) whose start time is read from {@code /proc}
 * independently of the code under test: a record naming its pid with another start time names a
 * dead holder whose pid was reused, and is reclaimed; with its own start time, or with no start time
 * at all (a bare pid), it names a live holder, and the lock is busy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PidReuseCrossProcessTest {

  @TempDir Path temporary;
  private Path directory;
  private Process sleeper;
  private long start;

  @BeforeEach
  void startSleeper() throws Exception {
    directory = Files.createDirectory(temporary.resolve("locked"));
    sleeper = new ProcessBuilder("sleep", "120").start();
    start = Signals.startTicks(sleeper.pid());
  }

  @AfterEach
  void killSleeper() throws InterruptedException {
    sleeper.destroyForcibly().waitFor();
  }

  @Test
  void theProcessTableReadsTheSameStartAsProc() {
    assertThat(ProcessTable.system().startOf(sleeper.pid())).hasValue(start);
  }

  @Test
  void aLivePidWithAnotherStartTimeIsADeadHolderAndReclaimed() throws Exception {
    for (long other : new long[] {start - 1, start + 1}) {
      write(recordOf(sleeper.pid(), other));
      try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "reclaimer")) {
        assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
      }
    }
    assertThat(directory).isEmptyDirectory();
  }

  @Test
  void aLivePidWithItsOwnStartTimeIsALiveHolderAndBusy() throws Exception {
    byte[] written = write(recordOf(sleeper.pid(), start));
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(300), "waiter"))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("pid " + sleeper.pid());
    assertThat(Files.readAllBytes(lockFile())).isEqualTo(written);
  }

  @Test
  void aBarePidOfALiveProcessIsBusy() throws Exception {
    Files.writeString(lockFile(), sleeper.pid() + "\n");
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(300), "waiter"))
        .isInstanceOf(LockBusyException.class);
    assertThat(Files.readString(lockFile())).isEqualTo(sleeper.pid() + "\n");
  }

  @Test
  void theSemaphoreJudgesPidReuseTheSameWay() throws Exception {
    write(recordOf(sleeper.pid(), start));
    assertThat(FolderSemaphore.tryTake(directory, "taker")).isFalse();
    write(recordOf(sleeper.pid(), start + 1));
    assertThat(FolderSemaphore.tryTake(directory, "taker")).isTrue();
    assertThat(FolderSemaphore.holder(directory)).get()
        .extracting(LockRecord::pid).isEqualTo(ProcessHandle.current().pid());
    FolderSemaphore.release(directory, "taker");
  }

  @Test
  void onceTheProcessIsGoneEvenItsOwnRecordIsReclaimed() throws Exception {
    write(recordOf(sleeper.pid(), start));
    sleeper.destroyForcibly().waitFor();
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "reclaimer")) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  private static LockRecord recordOf(long pid, long start) {
    ProcessIdentity here = ProcessTable.system().current();
    return new LockRecord(pid, start, here.bootId(), here.host(), "sleeper",
        "0123456789abcdef0123456789abcdef", Instant.now(), 0, -1);
  }

  private byte[] write(LockRecord record) throws Exception {
    byte[] bytes = record.toBytes();
    Files.write(lockFile(), bytes);
    return bytes;
  }

  private Path lockFile() {
    return directory.resolve(ProcessLock.FILE_NAME);
  }
}
