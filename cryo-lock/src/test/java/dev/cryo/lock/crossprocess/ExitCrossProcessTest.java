package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How a holder's end leaves its lock. A JVM that ends normally ({@code System.exit}, the end of
 * {@code main}, {@code SIGTERM}) releases every lock it still holds; one that ends abruptly
 * ({@code SIGKILL}, {@code Runtime.halt}) leaves a record naming a dead process, which the next
 * acquirer reclaims without waiting. A lock shared with a companion process stays held while the
 * companion lives, even when the holder is killed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExitCrossProcessTest {

  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path temporary;
  private Path directory;
  private final List<ChildJvm> children = new ArrayList<>();
  private final List<Process> others = new ArrayList<>();

  @BeforeEach
  void makeDirectory() throws Exception {
    directory = Files.createDirectory(temporary.resolve("locked"));
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (ChildJvm child : children) {
      child.close();
    }
    for (Process other : others) {
      other.destroyForcibly().waitFor();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"exit", "return"})
  void aHolderThatEndsNormallyWithoutClosingReleasesAtExit(String command) throws Exception {
    ChildJvm holder = holder();
    holder.send(command);
    assertThat(holder.awaitExit(START)).isZero();
    assertThat(directory).as("released by the exit hook").isEmptyDirectory();
  }

  @Test
  void aHolderEndedBySigtermReleasesAtExit() throws Exception {
    ChildJvm holder = holder();
    Signals.terminate(holder.pid()); // the JVM runs its shutdown hooks
    assertThat(holder.awaitExit(START)).isEqualTo(128 + 15);
    assertThat(directory).as("released by the exit hook").isEmptyDirectory();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"kill -9", "halt"})
  void aHolderThatEndsAbruptlyLeavesALockTheNextAcquirerReclaims(String end) throws Exception {
    ChildJvm holder = holder();
    if (end.equals("halt")) {
      holder.send("halt"); // no shutdown hooks
      assertThat(holder.awaitExit(START)).isZero();
    } else {
      holder.kill();
    }
    LockRecord left = LockRecord.parse(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME)));
    assertThat(left.pid()).isEqualTo(holder.pid());
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "next")) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
    assertThat(directory).isEmptyDirectory();
  }

  @Test
  void aLockSharedWithACompanionOutlivesItsKilledHolderUntilTheCompanionEnds() throws Exception {
    Process companion = new ProcessBuilder("sleep", "120").start();
    others.add(companion);
    ChildJvm holder = start("holder", "hold", directory.toString(),
        Long.toString(companion.pid()));
    holder.awaitLine("@HELD", START);
    holder.kill();
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(300), "next"))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("companion pid " + companion.pid() + " is alive");

    companion.destroyForcibly().waitFor();
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "next")) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  /**
   * {@link ProcessLock#shareWith} promises the lock stays held while the companion lives: a holder
   * that ends normally (its exit hook runs) leaves a shared lock in place while its companion runs.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"exit", "return", "sigterm"})
  void aLockSharedWithALiveCompanionOutlivesItsHoldersNormalEnd(String end) throws Exception {
    Process companion = new ProcessBuilder("sleep", "120").start();
    others.add(companion);
    ChildJvm holder = start("holder", "hold", directory.toString(),
        Long.toString(companion.pid()));
    holder.awaitLine("@HELD", START);
    if (end.equals("sigterm")) {
      Signals.terminate(holder.pid());
      assertThat(holder.awaitExit(START)).isEqualTo(128 + 15);
    } else {
      holder.send(end);
      assertThat(holder.awaitExit(START)).isZero();
    }

    LockRecord left = LockRecord.parse(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME)));
    assertThat(left.pid()).isEqualTo(holder.pid());
    assertThat(left.companionPid()).isEqualTo(companion.pid());
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(300), "next"))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("companion pid " + companion.pid() + " is alive");

    companion.destroyForcibly().waitFor();
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "next")) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  private ChildJvm holder() throws Exception {
    ChildJvm holder = start("holder", "hold", directory.toString());
    String token = holder.awaitLine("@HELD", START);
    LockRecord record = LockRecord.parse(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME)));
    assertThat(record.pid()).isEqualTo(holder.pid());
    assertThat(record.token()).isEqualTo(token);
    return holder;
  }

  private ChildJvm start(String name, String... arguments) throws Exception {
    ChildJvm child = ChildJvm.start(name, HolderMain.class, List.of(arguments));
    children.add(child);
    return child;
  }
}
