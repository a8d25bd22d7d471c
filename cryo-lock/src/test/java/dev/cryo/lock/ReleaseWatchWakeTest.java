package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiter wakes for the removal of the lockfile, not for the removal of any other entry of its
 * directory: every failed publication removes a temporary there, and waiters woken by each other's
 * temporaries would spin for as long as the lock is held.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReleaseWatchWakeTest {

  @TempDir Path directory;

  @Test
  void theRemovalOfAnotherEntryDoesNotEndTheWait() throws Exception {
    Path lockFile = Files.writeString(directory.resolve(".lock"), "1\n");
    Path temporary = Files.writeString(directory.resolve(".lock.cryo-tmp.1.0123456789abcdef"), "");
    try (ReleaseWatch watch = ReleaseWatch.onRemovalOf(lockFile)) {
      assumeTrue(watch.isNotified(), "no file-change notification here");
      Files.delete(temporary);
      long start = System.nanoTime();
      watch.await(TimeUnit.SECONDS.toNanos(10));
      // Only the nap bound ends this wait: nothing woke it earlier.
      assertThat(System.nanoTime() - start)
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(ReleaseWatch.MAX_NAP_MILLIS - 10));
    }
  }
}
