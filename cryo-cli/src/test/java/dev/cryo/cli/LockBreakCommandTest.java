package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.InProcess.Result;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cryo lock break}: removes only what is provably dead, the rest only by force. */
class LockBreakCommandTest {

  @TempDir Path dir;

  @Test
  void aFreeLockIsSaidFree() throws Exception {
    Result result = cryo("lock", "break", dir.toString());
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("is free: nothing to break");
    assertThat(result.err()).isEmpty();
  }

  @Test
  void aDeadHoldersLockIsRemovedSayingWhoseItWas() throws Exception {
    LockRecord record = Records.dead("crashed import");
    Records.write(dir, record);
    Result result = cryo("lock", "break", dir.toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).contains("removed " + dir.toRealPath().resolve(".lock"),
        "pid " + record.pid(), "crashed import", "holder dead");
    assertThat(result.out()).doesNotContain("by force");
    assertThat(dir.resolve(".lock")).doesNotExist();
  }

  @Test
  void aLiveHolderIsRefusedWithoutForceAndNothingChanges() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "busy worker")) {
      byte[] before = Files.readAllBytes(lock.lockFile());
      Result refused = cryo("lock", "break", dir.toString());
      assertThat(refused.exitCode()).isEqualTo(LockBreakCommand.EXIT_REFUSED);
      assertThat(refused.out()).isEmpty();
      assertThat(refused.errLines()).singleElement().asString()
          .startsWith("cryo lock break: busy: ")
          .contains("busy worker", "holder alive", "nothing was removed", "--force");
      assertThat(lock.lockFile()).hasBinaryContent(before);

      Result forced = cryo("lock", "break", "--force", dir.toString());
      assertThat(forced.exitCode()).isZero();
      assertThat(forced.out()).contains("by force", "busy worker",
          "pid " + ProcessHandle.current().pid(), "not stopped");
      assertThat(lock.lockFile()).doesNotExist();
    }
  }

  @Test
  void anotherHostsLockNeedsForce() throws Exception {
    Records.write(dir, Records.elsewhere("remote job"));
    assertThat(cryo("lock", "break", dir.toString()).exitCode())
        .isEqualTo(LockBreakCommand.EXIT_REFUSED);
    assertThat(dir.resolve(".lock")).exists();
    Result forced = cryo("lock", "break", dir.toString(), "--force");
    assertThat(forced.exitCode()).isZero();
    assertThat(forced.out()).contains("holder unknown", "another-host");
    assertThat(dir.resolve(".lock")).doesNotExist();
  }

  @Test
  void aMalformedRecordIsRemovedOnlyAfterItsGracePeriodOrByForce() throws Exception {
    Records.writeAged(dir, "garbage", 0);
    Result young = cryo("lock", "break", dir.toString());
    assertThat(young.exitCode()).isEqualTo(LockBreakCommand.EXIT_REFUSED);
    assertThat(young.err()).contains("malformed_record");
    assertThat(dir.resolve(".lock")).exists();
    assertThat(cryo("lock", "break", "--force", dir.toString()).exitCode()).isZero();
    assertThat(dir.resolve(".lock")).doesNotExist();

    Records.writeAged(dir, "garbage", 60);
    Result old = cryo("lock", "break", dir.toString());
    assertThat(old.exitCode()).isZero();
    assertThat(old.out()).contains("removed", "malformed record").doesNotContain("by force");
    assertThat(dir.resolve(".lock")).doesNotExist();
  }

  @Test
  void whatIsNotARegularFileIsNeverRemovedEvenByForce() throws Exception {
    Records.mkfifo(dir.resolve(".lock"));
    for (String[] args : new String[][] {
        {"lock", "break", dir.toString()}, {"lock", "break", "--force", dir.toString()}}) {
      Result result = cryo(args);
      assertThat(result.exitCode()).isEqualTo(LockBreakCommand.EXIT_UNUSABLE);
      assertThat(result.errLines()).singleElement().asString()
          .contains("not_a_regular_file", "a FIFO", "nothing was removed");
      assertThat(dir.resolve(".lock")).exists();
    }
    Files.delete(dir.resolve(".lock"));
    Path target = Files.writeString(dir.resolve("target"), "keep me");
    Files.createSymbolicLink(dir.resolve(".lock"), target);
    assertThat(cryo("lock", "break", "--force", dir.toString()).exitCode())
        .isEqualTo(LockBreakCommand.EXIT_UNUSABLE);
    assertThat(dir.resolve(".lock")).isSymbolicLink();
    assertThat(target).hasContent("keep me");
  }

  @Test
  void abandonedTemporariesOfDeadWritersAreCleanedAndOthersKept() throws Exception {
    Path abandoned = Files.writeString(
        dir.resolve(".lock.cryo-tmp." + Records.deadPid() + ".0123456789abcdef"), "x");
    Path abandonedAside = Files.writeString(
        dir.resolve(".lock.cryo-aside." + Records.deadPid() + ".fedcba9876543210"), "x");
    Path live = Files.writeString(
        dir.resolve(".lock.cryo-tmp." + ProcessHandle.current().pid() + ".0123456789abcdef"), "x");
    Path unrelated = Files.writeString(dir.resolve("notes.txt"), "x");
    Result result = cryo("lock", "break", dir.toString());
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("removed 2 abandoned temporaries", "is free");
    assertThat(abandoned).doesNotExist();
    assertThat(abandonedAside).doesNotExist();
    assertThat(live).exists();
    assertThat(unrelated).exists();
  }

  @Test
  void aMissingDirectoryIsRefusedWithExit66() {
    Result result = cryo("lock", "break", dir.resolve("missing").toString());
    assertThat(result.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(result.errLines()).singleElement().asString().contains("directory_missing");
  }

  /** A name anybody can create beside the lock, shaped like a temporary with an impossible pid. */
  @Test
  void aStrangersSideFileWithAnImpossiblePidIsNoCrash() throws Exception {
    String stranger = ".lock.cryo-tmp.9999999999999999999.0123456789abcdef";
    Files.writeString(dir.resolve(stranger), "");
    Records.write(dir, Records.elsewhere("held elsewhere"));

    Result status = cryo("lock", "status", dir.toString());
    Result refused = cryo("lock", "break", dir.toString());

    assertThat(status.exitCode()).as(status.err()).isEqualTo(LockStatusReport.EXIT_HELD);
    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(LockBreakCommand.EXIT_REFUSED);
    assertThat(refused.err()).doesNotContain("internal_error").contains("busy");
    assertThat(dir.resolve(stranger)).exists();
  }
}
