package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A companion whose start is unknown, or which is already gone, never leaves a malformed record. */
class CompanionRecordTest {

  @TempDir Path dir;

  @Test
  void companionWithUnknownStartRoundTrips() throws Exception {
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "x").withCompanion(4250, -1);
    String text = new String(record.toBytes(), StandardCharsets.UTF_8);
    assertThat(text).endsWith("companion 4250\n");
    assertThat(LockRecord.parse(record.toBytes())).isEqualTo(record);
    LockRecord known = record.withCompanion(4250, 91325790);
    assertThat(LockRecord.parse(known.toBytes())).isEqualTo(known);
  }

  @Test
  void aCompanionThatAlreadyEndedIsNotNamedAndReleaseStillRemovesTheLock() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "companion test")) {
      lock.shareWith(ended.toHandle());
      assertThat(lock.record().companionPid()).isZero();
      assertThat(LockRecord.parse(Files.readAllBytes(lock.lockFile()))).isEqualTo(lock.record());
    }
    assertThat(dir.resolve(".lock")).doesNotExist();
  }
}
