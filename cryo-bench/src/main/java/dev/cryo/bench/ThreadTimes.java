package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each kind of thread of a process has cost so far, from {@code /proc/PID/task/*}
 * (Linux): for each group of threads (the kernel's thread name with its numbers folded, so that
 * {@code GC Thread#0} and {@code GC Thread#1} are one group, and {@code C1} and {@code C2} compiler threads two) the nanoseconds on a
 * processor and waiting for one ({@code schedstat}: runnable but not running, the scheduling
 * delay of a busy machine), the voluntary and involuntary switches ({@code status}), and the
 * part of the processor time spent in the kernel ({@code stat}'s {@code stime}, in clock ticks of
 * 10 ms, the kernel's {@code USER_HZ} of 100 on Linux). Threads
 * that ended took their counts with them, so a difference is meaningful over a span in which the
 * process's threads stay (a warmed-up JVM's; a pool that makes threads anew loses their counts).
 * Stateless, thread-safe.
 */
public final class ThreadTimes {

  /** The index of each count in the arrays of {@link #of}. */
  public static final int RUN = 0;
  /** Nanoseconds runnable, waiting for a processor. */
  public static final int WAIT = 1;
  /** Voluntary switches (the thread waited: a wake-up to come). */
  public static final int VOLUNTARY = 2;
  /** Involuntary switches (the kernel took the processor away). */
  public static final int INVOLUNTARY = 3;

  /**
   * Nanoseconds on a processor in the kernel (system calls, page faults), a part of {@link #RUN};
   * counted in clock ticks of 10 ms.
   */
  public static final int SYSTEM = 4;

  /** How many counts each array of {@link #of} holds. */
  public static final int COUNTS = 5;

  /** Nanoseconds per clock tick of {@code /proc/PID/task/TID/stat} ({@code USER_HZ} = 100). */
  private static final long TICK_NANOS = 10_000_000L;

  private ThreadTimes() {}

  /**
   * The counts of process {@code pid}'s live threads so far, by group (sorted by name), each
   * {@code {run ns, wait ns, voluntary, involuntary, system ns}}; empty when they cannot be read (no such
   * process, no {@code /proc}). A thread that ends while it is read is left out.
   */
  public static Map<String, long[]> of(long pid) {
    Map<String, long[]> groups = new TreeMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(
        Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          String group = group(Files.readString(task.resolve("comm")).strip());
          String[] sched = Files.readString(task.resolve("schedstat")).strip().split(" ");
          long[] counts = new long[COUNTS];
          counts[RUN] = Long.parseLong(sched[0]);
          counts[WAIT] = Long.parseLong(sched[1]);
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
              counts[VOLUNTARY] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
              counts[INVOLUNTARY] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          counts[SYSTEM] = systemTicks(Files.readString(task.resolve("stat"))) * TICK_NANOS;
          long[] sum = groups.computeIfAbsent(group, g -> new long[counts.length]);
          for (int i = 0; i < sum.length; i++) {
            sum[i] += counts[i];
          }
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile: its counts are gone with it
        }
      }
    } catch (IOException | RuntimeException e) {
      return Map.of();
    }
    return groups;
  }

  /**
   * The {@code stime} field of a {@code stat} line: the 13th after the command, which is in
   * parentheses and may itself hold spaces and parentheses (so the fields are counted from its
   * last closing parenthesis).
   */
  static long systemTicks(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
    return Long.parseLong(fields[12]);
  }

  /**
   * The group of a kernel thread name (at most 15 characters): its numbers (digits not after a letter) folded into one
   * {@code #}, so that the numbered threads of one pool are one group.
   */
  static String group(String comm) {
    return comm.replaceAll("(?<![A-Za-z])[0-9]+", "#");
  }

  /**
   * {@code after} minus {@code before}, group by group (a group missing from {@code before}
   * counts from zero; one missing from {@code after} is left out: its threads ended).
   */
  public static Map<String, long[]> minus(Map<String, long[]> after, Map<String, long[]> before) {
    Map<String, long[]> difference = new TreeMap<>();
    after.forEach((group, counts) -> {
      long[] earlier = before.getOrDefault(group, new long[counts.length]);
      long[] d = new long[counts.length];
      for (int i = 0; i < d.length; i++) {
        d[i] = counts[i] - earlier[i];
      }
      difference.put(group, d);
    });
    return difference;
  }

  /** Every group's counts added up, each count at least 0 (a difference may dip below). */
  public static long[] total(Map<String, long[]> groups) {
    long[] all = new long[COUNTS];
    for (long[] counts : groups.values()) {
      for (int k = 0; k < all.length && k < counts.length; k++) {
        all[k] += Math.max(0, counts[k]);
      }
    }
    return all;
  }

  /**
   * The groups whose processor time is at least {@code floorNanos}, the largest first: what a
   * readout names.
   */
  public static List<Map.Entry<String, long[]>> largest(Map<String, long[]> groups,
      long floorNanos) {
    return groups.entrySet().stream()
        .filter(group -> group.getValue()[RUN] >= floorNanos)
        .sorted((a, b) -> Long.compare(b.getValue()[RUN], a.getValue()[RUN]))
        .toList();
  }
}
