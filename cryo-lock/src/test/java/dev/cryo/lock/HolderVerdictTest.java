package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proof of death, judged against real processes of this machine (no mocks). */
class HolderVerdictTest {

  private static final ProcessTable TABLE = ProcessTable.system();

  private Process child;

  @BeforeAll
  static void linuxWithProcfs() {
    assumeThat(TABLE.bootId()).as("these tests need /proc and a boot id").isNotNull();
    assumeThat(TABLE.host()).isNotNull();
  }

  @AfterEach
  void reapChild() throws Exception {
    if (child != null) {
      TestProcesses.reap(child);
    }
  }

  private static HolderVerdict judge(LockRecord record) {
    return HolderVerdict.judge(record, TABLE);
  }

  @Test
  void processTableReadsTheStartTheKernelRecorded() throws Exception {
    child = TestProcesses.sleeper();
    long pid = ProcessHandle.current().pid();

    assertThat(TABLE.startOf(child.pid())).hasValue(TestProcesses.startTicks(child.pid()));
    assertThat(TABLE.current().pid()).isEqualTo(pid);
    assertThat(TABLE.current().start()).isEqualTo(TestProcesses.startTicks(pid));
    assertThat(TABLE.current().bootId()).isEqualTo(TABLE.bootId());
    assertThat(TABLE.startOf(0)).isEmpty();
    assertThat(TABLE.startOf(-1)).isEmpty();
  }

  /** The name in {@code /proc/PID/stat} may hold spaces and parentheses: fields count from the last. */
  @Test
  void aProcessNamedWithSpacesAndParenthesesIsReadFromItsLastParenthesis(@TempDir Path dir)
      throws Exception {
    Path named = Files.copy(Path.of("/bin/sleep"), dir.resolve("a) 1 2 (b"));
    assertThat(named.toFile().setExecutable(true)).isTrue();
    child = new ProcessBuilder(named.toString(), "600").start();
    String stat = Files.readString(Path.of("/proc", Long.toString(child.pid()), "stat"));
    assertThat(stat).contains("(a) 1 2 (b)");

    assertThat(TABLE.startOf(child.pid())).hasValue(TestProcesses.startTicks(child.pid()));
    assertThat(judge(localRecord(child.pid(), TestProcesses.startTicks(child.pid()), "named"))
        .liveness()).isEqualTo(Liveness.ALIVE);
  }

  @Test
  void aLiveChildWithItsOwnStartIsAlive() throws Exception {
    child = TestProcesses.sleeper();
    long start = TestProcesses.startTicks(child.pid());

    HolderVerdict verdict = judge(localRecord(child.pid(), start, "live child"));

    assertThat(verdict.liveness()).isEqualTo(Liveness.ALIVE);
    assertThat(verdict.reason()).contains("pid " + child.pid() + " is alive");
  }

  @Test
  void thisJvmIsAlive() {
    assertThat(judge(LockRecord.fresh(ProcessIdentity.current(), "me")).liveness())
        .isEqualTo(Liveness.ALIVE);
  }

  @Test
  void aReapedChildIsDead() throws Exception {
    child = TestProcesses.sleeper();
    long pid = child.pid();
    long start = TestProcesses.startTicks(pid);
    LockRecord record = localRecord(pid, start, "reaped child");
    assertThat(judge(record).liveness()).isEqualTo(Liveness.ALIVE);

    TestProcesses.reap(child);
    child = null;
    HolderVerdict verdict = judge(record);

    assertThat(verdict.liveness()).isEqualTo(Liveness.DEAD);
    assertThat(verdict.reason()).isEqualTo("no live process has pid " + pid);
  }

  @Test
  void aLivePidWithAnotherStartWasReused() throws Exception {
    child = TestProcesses.sleeper();
    long start = TestProcesses.startTicks(child.pid());

    HolderVerdict earlier = judge(localRecord(child.pid(), start - 1, "earlier owner of the pid"));
    HolderVerdict later = judge(localRecord(child.pid(), start + 1, "later"));

    assertThat(earlier.liveness()).isEqualTo(Liveness.DEAD);
    assertThat(earlier.reason()).contains("now belongs to another process")
        .contains("tick " + start).contains("tick " + (start - 1));
    assertThat(later.liveness()).isEqualTo(Liveness.DEAD);
  }

  @Test
  void aRecordWithoutAStartIsJudgedOnItsPid() throws Exception {
    child = TestProcesses.sleeper();

    assertThat(judge(localRecord(child.pid(), -1, "no start")).liveness())
        .isEqualTo(Liveness.ALIVE);
  }

  @Test
  void anotherBootIdIsDeadEvenIfItsPidIsAliveNow() {
    ProcessIdentity self = ProcessIdentity.current();
    LockRecord beforeReboot = new LockRecord(self.pid(), self.start(), "an-earlier-boot",
        self.host(), "before reboot", null, Instant.now(), 0, -1);

    HolderVerdict verdict = judge(beforeReboot);

    assertThat(verdict.liveness()).isEqualTo(Liveness.DEAD);
    assertThat(verdict.reason()).contains("an-earlier-boot");
  }

  @Test
  void anotherHostIsUnknownEvenWhenItsPidIsDeadHere() throws Exception {
    long dead = TestProcesses.reapedPid();
    LockRecord remote = new LockRecord(dead, 12, "another-boot", "elsewhere.invalid", "remote",
        null, Instant.now(), 0, -1);

    HolderVerdict verdict = judge(remote);

    assertThat(verdict.liveness()).isEqualTo(Liveness.UNKNOWN);
    assertThat(verdict.reason()).contains("elsewhere.invalid").contains(TABLE.host());
  }

  @Test
  void aLiveCompanionKeepsADeadHolderAlive() throws Exception {
    child = TestProcesses.sleeper();
    long companionStart = TestProcesses.startTicks(child.pid());
    long dead = TestProcesses.reapedPid();
    LockRecord record = localRecord(dead, 5, "with companion");

    HolderVerdict alone = judge(record);
    HolderVerdict withLiveCompanion = judge(record.withCompanion(child.pid(), companionStart));
    HolderVerdict withReusedCompanion =
        judge(record.withCompanion(child.pid(), companionStart + 1));

    assertThat(alone.liveness()).isEqualTo(Liveness.DEAD);
    assertThat(withLiveCompanion.liveness()).isEqualTo(Liveness.ALIVE);
    assertThat(withLiveCompanion.reason()).contains("companion pid " + child.pid());
    assertThat(withReusedCompanion.liveness()).isEqualTo(Liveness.DEAD);
    assertThat(withReusedCompanion.reason()).contains("no live process has pid " + dead)
        .contains("companion pid " + child.pid() + " now belongs to another process");
  }

  @Test
  void aLiveHolderStaysAliveWhateverItsCompanion() throws Exception {
    long dead = TestProcesses.reapedPid();
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "me").withCompanion(dead, 9);

    assertThat(judge(record).liveness()).isEqualTo(Liveness.ALIVE);
  }

  @Test
  void aBarePidRecordIsJudgedOnItsPidAlone() throws Exception {
    child = TestProcesses.sleeper();
    LockRecord live = LockRecord.parse((child.pid() + "\n").getBytes(StandardCharsets.US_ASCII));
    long dead = TestProcesses.reapedPid();
    LockRecord gone = LockRecord.parse(Long.toString(dead).getBytes(StandardCharsets.US_ASCII));

    assertThat(judge(live).liveness()).isEqualTo(Liveness.ALIVE);
    assertThat(judge(gone).liveness()).isEqualTo(Liveness.DEAD);
  }

  /**
   * A zombie (exited, not yet reaped) still has its pid in the table but runs nothing: dead. The
   * zombie is made deterministically: a shell starts {@code cat} in the background on a pipe this
   * test holds, then becomes {@code sleep}, which never reaps; closing the pipe ends {@code cat}.
   */
  @Test
  void aZombieIsDead() throws Exception {
    child = new ProcessBuilder("sh", "-c", "exec 3<&0; cat <&3 >/dev/null & echo $!; exec sleep 600")
        .start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
    long zombie = Long.parseLong(out.readLine().strip());
    long start = TestProcesses.startTicks(zombie);
    LockRecord record = localRecord(zombie, start, "soon a zombie");
    assertThat(judge(record).liveness()).isEqualTo(Liveness.ALIVE);
    // Until the shell has become sleep, it may reap cat itself: wait for the exec.
    Path comm = Path.of("/proc", Long.toString(child.pid()), "comm");
    TestProcesses.awaitCondition("the shell became sleep", () -> {
      try {
        return Files.readString(comm).strip().equals("sleep");
      } catch (java.io.IOException e) {
        throw new AssertionError("the shell is gone", e);
      }
    });

    child.getOutputStream().close();
    TestProcesses.awaitCondition("cat is a zombie", () -> {
      try {
        return TestProcesses.state(zombie) == 'Z';
      } catch (java.io.IOException e) {
        throw new AssertionError("the zombie was reaped: its parent is not sleep", e);
      }
    });

    assertThat(TABLE.startOf(zombie)).isEmpty();
    assertThat(judge(record).liveness()).isEqualTo(Liveness.DEAD);
  }

  @Test
  void livenessCodesAreLowerCase() {
    assertThat(Liveness.ALIVE.code()).isEqualTo("alive");
    assertThat(Liveness.DEAD.code()).isEqualTo("dead");
    assertThat(Liveness.UNKNOWN.code()).isEqualTo("unknown");
  }
}
