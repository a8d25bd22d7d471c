package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.ProcessTable;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process is alive as long as any of its threads is: when its main thread ends first
 * ({@code pthread_exit}), {@code /proc/PID/stat} says zombie, yet the process runs on and its lock is
 * held. (A killed JVM passes through the same state on its way out, its sockets and files still
 * open.) The process here is a Python interpreter whose main thread exits while another sleeps;
 * the test is skipped where there is no {@code python3}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LivenessCrossProcessTest {

  private static final String PROGRAM = String.join("\n",
      "import ctypes, os, sys, threading, time",
      "threading.Thread(target=lambda: time.sleep(120)).start()",
      "print(os.getpid(), flush=True)",
      "ctypes.CDLL(None).pthread_exit(None)", "");

  @TempDir Path directory;
  private Process python;

  @AfterEach
  void killPython() throws InterruptedException {
    if (python != null) {
      python.destroyForcibly().waitFor();
    }
  }

  @Test
  void aProcessWhoseMainThreadEndedWhileAnotherRunsIsAliveAndItsLockBusy() throws Exception {
    python = startPython();
    long pid = python.pid();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!mainThreadIsZombie(pid)) {
      assumeTrue(python.isAlive() && System.nanoTime() < deadline,
          "python3 could not end its main thread alone here");
      Thread.sleep(10);
    }
    long start = Signals.startTicks(pid);
    assertThat(ProcessTable.system().startOf(pid)).as("alive, with its start").hasValue(start);

    ProcessIdentity here = ProcessTable.system().current();
    byte[] record = new LockRecord(pid, start, here.bootId(), here.host(), "python",
        "0123456789abcdef0123456789abcdef", Instant.now(), 0, -1).toBytes();
    Files.write(directory.resolve(ProcessLock.FILE_NAME), record);
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(300), "waiter"))
        .isInstanceOf(LockBusyException.class).hasMessageContaining("pid " + pid + " is alive");
    assertThat(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME))).isEqualTo(record);

    python.destroyForcibly().waitFor();
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "reclaimer")) {
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  private static Process startPython() throws Exception {
    Process process;
    try {
      process = new ProcessBuilder("python3", "-c", PROGRAM).redirectErrorStream(true).start();
    } catch (java.io.IOException e) {
      assumeTrue(false, "no python3 here: " + e.getMessage());
      throw e;
    }
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // its pid, once the other thread runs
    assumeTrue(line != null && line.strip().matches("[0-9]+"),
        "python3 did not start as expected: " + line);
    return process;
  }

  private static boolean mainThreadIsZombie(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
  }
}
