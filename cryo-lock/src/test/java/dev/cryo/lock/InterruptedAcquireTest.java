package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted wait is a busy refusal ("the wait was interrupted"), never a validation refusal;
 * an interrupt never breaks the file work itself (see {@link InterruptedThreadTest}).
 */
class InterruptedAcquireTest {

  @TempDir Path dir;

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void anInterruptedWaitForABusyLockIsBusy() throws Exception {
    Files.writeString(dir.resolve(".lock"), "1\n");
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(30)))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("interrupted");
    assertThat(dir.resolve(".lock")).hasContent("1\n");
  }

  @Test
  void anInterruptedAcquisitionOfAFreeLockLeavesNothingBehind() throws Exception {
    Thread.currentThread().interrupt();
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ofSeconds(30))) {
      // Nothing had to be waited for: the lock was taken.
      assertThat(lock.isOpen()).isTrue();
    }
    Thread.interrupted();
    try (var entries = Files.list(dir)) {
      assertThat(entries).isEmpty();
    }
  }
}
