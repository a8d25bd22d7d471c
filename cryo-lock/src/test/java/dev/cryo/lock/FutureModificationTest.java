package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A malformed lockfile's grace period is counted from its modification time, which anybody who
 * writes the file may set: a time far in the future must neither overflow the computation nor keep
 * the lock forever. A time at most {@link ProcessLock#MAX_CLOCK_SKEW} ahead (a file server whose
 * clock runs ahead) is respected, and the grace then ends at most that much later.
 */
class FutureModificationTest {

  @TempDir Path dir;

  private Path malformedModifiedAt(Instant modified) throws Exception {
    Path lock = Files.writeString(dir.resolve(".lock"), "half a reco");
    // touch(1), since the JDK cannot set a time past 2262 (nanoseconds in a long); ext4 can.
    Process touch = new ProcessBuilder("touch", "-m", "-d", modified.toString(), lock.toString())
        .inheritIO().start();
    assertThat(touch.waitFor()).isZero();
    assertThat(Files.getLastModifiedTime(lock).toInstant()).isEqualTo(modified);
    return lock;
  }

  @Test
  void aWaitingAcquirerReclaimsAMalformedRecordModifiedCenturiesAhead() throws Exception {
    malformedModifiedAt(Instant.parse("2400-01-01T00:00:00Z"));

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ofSeconds(30), "after")) {
      assertThat(LockRecord.parse(Files.readAllBytes(lock.lockFile()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aTryOnceTakerReclaimsAMalformedRecordModifiedCenturiesAhead() throws Exception {
    malformedModifiedAt(Instant.parse("2400-01-01T00:00:00Z"));

    assertThat(FolderSemaphore.tryTake(dir, "taker")).isTrue();
    assertThat(FolderSemaphore.holder(dir)).hasValueSatisfying(
        record -> assertThat(record.holder()).isEqualTo("taker"));
  }

  @Test
  void aModificationSlightlyAheadIsRespectedThenReclaimedWithinTheBound() throws Exception {
    Instant ahead = Instant.now().plusSeconds(1);
    malformedModifiedAt(ahead);

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO, "too early"))
        .isInstanceOf(LockBusyException.class);
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ofSeconds(30), "waiter")) {
      assertThat(Instant.now()).isAfterOrEqualTo(ahead.plus(ProcessLock.MALFORMED_GRACE));
      assertThat(lock.isOpen()).isTrue();
    }
  }

  @Test
  void theReclaimTimeIsBoundedWhateverTheModificationTime() {
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    for (Instant modified : new Instant[] {Instant.MAX, Instant.MIN, Instant.EPOCH,
        now.plus(ProcessLock.MAX_CLOCK_SKEW), now.plus(ProcessLock.MAX_CLOCK_SKEW).plusNanos(1)}) {
      Instant at = ProcessLock.malformedReclaimableAt(modified, now);
      assertThat(at).as("for %s", modified)
          .isBeforeOrEqualTo(now.plus(ProcessLock.MAX_CLOCK_SKEW).plus(
              ProcessLock.MALFORMED_GRACE));
    }
    assertThat(ProcessLock.malformedReclaimableAt(now.minusSeconds(1), now))
        .isEqualTo(now.minusSeconds(1).plus(ProcessLock.MALFORMED_GRACE));
    assertThat(ProcessLock.malformedReclaimableAt(Instant.MAX, now)).isEqualTo(now);
  }
}
