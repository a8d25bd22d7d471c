package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The processor time a process has used so far, user and system, from {@code /proc/PID/stat}
 * (Linux; the kernel counts it in clock ticks, 10 ms each at the usual 100 Hz, so a figure is
 * only as fine as the span it is taken over). Stateless, thread-safe.
 */
public final class ProcessCpu {

  /** The kernel's clock ticks per second ({@code getconf CLK_TCK}; 100 on Linux builds here). */
  private static final long TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /**
   * Nanoseconds of processor time process {@code pid} used so far, or -1 when it cannot be read
   * (no such process, no {@code /proc}).
   */
  public static long nanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // the command name, in parentheses, may hold spaces: count the fields after its end
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
      return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
