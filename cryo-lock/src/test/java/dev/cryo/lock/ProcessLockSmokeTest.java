package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessLockSmokeTest {

  @TempDir Path dir;

  @Test
  void acquireWritesRecordAndReleaseRemovesIt() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "smoke")) {
      String text = Files.readString(dir.resolve(".lock"));
      assertThat(text).startsWith("cryo-lock 1\npid " + ProcessHandle.current().pid() + "\n")
          .contains("holder smoke\n").contains("token " + lock.record().token());
      try (ProcessLock again = ProcessLock.acquire(dir, Duration.ZERO)) {
        assertThat(again.record()).isEqualTo(lock.record());
      }
      assertThat(dir.resolve(".lock")).exists();
    }
    assertThat(dir.resolve(".lock")).doesNotExist();
    assertThat(Files.list(dir)).isEmpty();
  }

  @Test
  void deadHolderIsReclaimed() throws Exception {
    Process child = new ProcessBuilder("true").start();
    child.waitFor();
    Files.writeString(dir.resolve(".lock"), child.pid() + "\n");
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  @Test
  void liveHolderIsBusy() throws Exception {
    Files.writeString(dir.resolve(".lock"), "1\n");
    long start = System.nanoTime();
    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofMillis(300)))
        .isInstanceOf(LockBusyException.class).hasMessageContaining("pid 1");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(Files.readString(dir.resolve(".lock"))).isEqualTo("1\n");
  }
}
