package dev.cryo.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lucene's LockVerifyServer and LockStressTest, in their own JVMs, against cryo's lock (CI size:
 * Lucene's own, 2 clients x 500 rounds), and against a factory that does not lock at all, to show
 * that the check can fail.
 */
class LockStressRunTest {

  @TempDir Path directory;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void luceneStressClientsFindNoOverlapInCryosLock() throws Exception {
    LockStressRun.Result result =
        LockStressRun.run(CryoLockFactory.class, 2, 500, 1, directory);

    assertThat(result.passed()).as(result.summary()).isTrue();
    assertThat(result.clientStatuses()).containsExactly(0, 0);
    assertThat(result.serverCompleted()).isTrue();
    assertThat(result.obtained()).as("obtains that succeeded").isPositive();
    assertThat(result.refused()).as("obtains refused because the other client held the lock")
        .isPositive();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void theSameCheckFailsAFactoryThatDoesNotExclude() throws Exception {
    LockStressRun.Result result =
        LockStressRun.run(BrokenLockFactory.class, 2, 500, 1, directory);

    assertThat(result.passed()).as(result.summary()).isFalse();
    assertThat(result.clientStatuses()).anyMatch(status -> status != 0);
  }
}
