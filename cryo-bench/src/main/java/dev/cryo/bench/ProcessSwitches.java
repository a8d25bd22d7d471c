package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How often the threads of a process have been switched off a processor so far, voluntarily
 * (they waited: each is a wake-up to come) and not (the kernel took the processor away), summed
 * over the threads alive now, from {@code /proc/PID/task/*}{@code /status} (Linux). Threads that
 * ended took their counts with them, so a difference is meaningful over a span in which the
 * process's threads stay (a warmed-up JVM's). Stateless, thread-safe.
 */
public final class ProcessSwitches {

  private ProcessSwitches() {}

  /**
   * The voluntary and the involuntary switches of process {@code pid}'s live threads so far, or
   * {@code {-1, -1}} when they cannot be read (no such process, no {@code /proc}).
   */
  public static long[] of(long pid) {
    long voluntary = 0;
    long involuntary = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(
        Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
              voluntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
              involuntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
        } catch (IOException e) {
          // the thread ended meanwhile: its counts are gone with it
        }
      }
      return new long[] {voluntary, involuntary};
    } catch (IOException | RuntimeException e) {
      return new long[] {-1, -1};
    }
  }
}
