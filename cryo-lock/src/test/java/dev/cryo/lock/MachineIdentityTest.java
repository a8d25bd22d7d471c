package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host name is no machine's identity: two machines may share one on shared storage, and each
 * would read the other's boot id as a boot of its own that is over. A record names its machine
 * ({@code /etc/machine-id}); the boot and pid rules apply only to a record of this machine, and a
 * record of another machine is unknown, and held.
 */
class MachineIdentityTest {

  private static final ProcessTable TABLE = ProcessTable.system();
  private static final String TWIN = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  @BeforeAll
  static void identified() {
    assumeThat(TABLE.bootId()).isNotNull();
    assumeThat(TABLE.host()).isNotNull();
    assumeThat(TABLE.machineId()).as("this machine has an /etc/machine-id").isNotNull();
  }

  /** A live-looking record written by a twin: same host name, another machine, another boot. */
  private static String twinRecord() {
    return "cryo-lock 1\npid " + ProcessHandle.current().pid() + "\nstart 1\n"
        + "boot 3c1e0a4e-5f4e-4a5b-9a53-1f7c3e0b1d2a\nmachine " + TWIN + "\nhost " + TABLE.host()
        + "\nholder twin\ntoken 5f0c2b8e9d7a41c3b6e2f18a0d9c4e77\nsince " + Instant.now() + "\n";
  }

  @Test
  void aRecordOfAnotherMachineWithTheSameHostNameIsUnknownAndHeld() throws Exception {
    String twin = twinRecord();
    Path lock = Files.writeString(dir.resolve(".lock"), twin);

    LockReading reading = LockFile.at(lock).read();

    assertThat(reading).isInstanceOfSatisfying(LockReading.Present.class, present -> {
      assertThat(present.record().machineId()).isEqualTo(TWIN);
      HolderVerdict verdict = HolderVerdict.judge(present.record(), TABLE);
      assertThat(verdict.liveness()).isEqualTo(Liveness.UNKNOWN);
      assertThat(verdict.reason()).contains(TWIN);
    });
    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(3), "not a twin"))
        .isInstanceOf(LockBusyException.class);
    assertThat(lock).hasContent(twin.strip());
  }

  @Test
  void aRecordOfThisMachineFromAnEarlierBootIsDead() throws Exception {
    String earlier = twinRecord().replace(TWIN, TABLE.machineId());
    Files.writeString(dir.resolve(".lock"), earlier);

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "after the reboot")) {
      assertThat(lock.record().machineId()).isEqualTo(TABLE.machineId());
      assertThat(new String(Files.readAllBytes(lock.lockFile())))
          .contains("machine " + TABLE.machineId() + "\n");
    }
  }

  @Test
  void aRecordWithoutAMachineFallsBackToTheHostName() throws Exception {
    LockRecord older = new LockRecord(ProcessHandle.current().pid(), 1, "another-boot",
        TABLE.host(), "older writer", null, null, 0, -1);

    assertThat(older.machineId()).isNull();
    assertThat(HolderVerdict.judge(older, TABLE).liveness()).isEqualTo(Liveness.DEAD);
  }
}
