package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names that anybody may create beside a lockfile, shaped like cryo's temporaries but not cryo's:
 * they are left alone (or reported), and nothing that cleans the directory crashes on them.
 */
class StrangerSideFileTest {

  private static final String HEX = "0123456789abcdef";

  @TempDir Path dir;

  private List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  /** A record held by pid 1, which is alive and is not this JVM. */
  private void holdByPidOne() throws IOException {
    Files.write(dir.resolve(".lock"),
        localRecord(1, TestProcesses.startTicks(1), "init").toBytes());
  }

  @Test
  void aPidOutOfRangeIsNotAWriterAndIsLeftAlone() throws Exception {
    String stranger = ".lock.cryo-tmp.9999999999999999999." + HEX;
    Files.writeString(dir.resolve(stranger), "not ours");

    assertThat(Publication.removeAbandoned(dir, ".lock", ProcessTable.system())).isZero();

    assertThat(names()).containsExactly(stranger);
  }

  @Test
  void aContendedAcquireBesideAnOutOfRangeNameIsBusyNotACrash() throws Exception {
    holdByPidOne();
    String stranger = ".lock.cryo-aside.9999999999999999999." + HEX;
    Files.writeString(dir.resolve(stranger), "");

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofMillis(50), "waiter"))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("pid 1");
    assertThat(FolderSemaphore.tryTake(dir, "taker")).isFalse();

    assertThat(names()).containsExactly(".lock", stranger);
  }

  @Test
  void aDirectoryOrFifoNamedLikeADeadWritersTemporaryIsLeftAlone() throws Exception {
    long dead = TestProcesses.reapedPid();
    Path directory = Files.createDirectory(dir.resolve(".lock.cryo-tmp." + dead + "." + HEX));
    Path fifo = dir.resolve(".lock.cryo-aside." + dead + "." + HEX);
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    Path temporary = Files.writeString(dir.resolve(".lock.cryo-tmp." + dead + ".fedcba9876543210"),
        "a dead writer's");

    assertThat(Publication.removeAbandoned(dir, ".lock", ProcessTable.system())).isEqualTo(1);

    assertThat(directory).isDirectory();
    assertThat(fifo).exists();
    assertThat(temporary).doesNotExist();
  }
}
