package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Real child processes and facts read straight from {@code /proc}, for the unit tests. */
final class TestProcesses {

  static final Duration BOUND = Duration.ofSeconds(30);

  private TestProcesses() {}

  /** A live child that sleeps until destroyed. */
  static Process sleeper() throws IOException {
    return new ProcessBuilder("sleep", "600").redirectErrorStream(true).start();
  }

  /** The pid of a child that has exited and been reaped: no live process has it (for now). */
  static long reapedPid() throws Exception {
    Process child = new ProcessBuilder("true").start();
    assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return child.pid();
  }

  /** Kills and reaps {@code child}. */
  static void reap(Process child) {
    child.destroyForcibly();
    try {
      assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while reaping " + child.pid(), e);
    }
  }

  /**
   * The start of {@code pid} in clock ticks since boot, parsed from {@code /proc/PID/stat} here
   * rather than by {@link ProcessTable}, so that the two can be compared.
   */
  static long startTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"),
        StandardCharsets.ISO_8859_1);
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[19]);
  }

  /** The state letter of {@code pid} in {@code /proc/PID/stat}. */
  static char state(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"),
        StandardCharsets.ISO_8859_1);
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }

  /** Polls until {@code condition} holds; fails after {@link #BOUND}. */
  static void awaitCondition(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(200_000);
    }
  }

  /** Waits until {@code thread} is parked (waiting for a lock or a condition) or has ended. */
  static void awaitParkedOrDone(Thread thread) {
    awaitCondition(thread.getName() + " is parked or done", () -> switch (thread.getState()) {
      case WAITING, TIMED_WAITING, TERMINATED -> true;
      default -> false;
    });
  }

  /** A record naming {@code pid} as a process of this machine, started at {@code start}. */
  static LockRecord localRecord(long pid, long start, String holder) {
    ProcessTable table = ProcessTable.system();
    return new LockRecord(pid, start, table.bootId(), table.host(), holder,
        LockRecord.fresh(table.current(), holder).token(), java.time.Instant.now(), 0, -1);
  }
}
