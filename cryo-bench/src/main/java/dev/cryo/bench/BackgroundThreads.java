package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM's own background threads of some processes, found once by their kernel names, and their
 * processor time so far, read cheaply enough to sample around each single operation of a bench:
 * the compilers ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}) and the collector with the
 * safepoints' thread ({@code GC Thread#…}, {@code G1 …}, {@code VM Thread}). Linux only (from
 * {@code /proc/PID/task/TID/schedstat}); elsewhere nothing is found and every sample is zero. A
 * thread started after {@link #of} is not seen: find them again at each block. Immutable;
 * {@link #sample} may be called from any thread.
 */
public final class BackgroundThreads {

  /** Index of the compilers' processor time in a {@link #sample}. */
  public static final int JIT = 0;

  /** Index of the collector's (and the safepoints' thread's) processor time in a {@link #sample}. */
  public static final int GC = 1;

  private final List<Path> jit;
  private final List<Path> gc;

  private BackgroundThreads(List<Path> jit, List<Path> gc) {
    this.jit = List.copyOf(jit);
    this.gc = List.copyOf(gc);
  }

  /** The compiler and collector threads that processes {@code pids} have now. */
  public static BackgroundThreads of(List<Long> pids) {
    List<Path> jit = new ArrayList<>();
    List<Path> gc = new ArrayList<>();
    for (long pid : pids) {
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(
          Path.of("/proc", Long.toString(pid), "task"))) {
        for (Path task : tasks) {
          try {
            switch (kind(Files.readString(task.resolve("comm")).strip())) {
              case JIT -> jit.add(task.resolve("schedstat"));
              case GC -> gc.add(task.resolve("schedstat"));
              default -> { }
            }
          } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
          }
        }
      } catch (IOException | RuntimeException e) {
        // no such process, or no /proc: nothing of it is sampled
      }
    }
    return new BackgroundThreads(jit, gc);
  }

  /** {@link #JIT}, {@link #GC}, or -1 for a thread of neither kind, by its kernel name. */
  static int kind(String comm) {
    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
      return JIT;
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread")) {
      return GC;
    }
    return -1;
  }

  /** How many threads were found: {@code {compilers, collector's}}. */
  public int[] counts() {
    return new int[] {jit.size(), gc.size()};
  }

  /**
   * The processor time so far of the threads found, in nanoseconds: {@code {compilers,
   * collector's}}. A thread that has ended counts 0 from then on.
   */
  public long[] sample() {
    return new long[] {sum(jit), sum(gc)};
  }

  private static long sum(List<Path> stats) {
    long sum = 0;
    for (Path stat : stats) {
      try {
        String line = Files.readString(stat);
        sum += Long.parseLong(line.substring(0, line.indexOf(' ')));
      } catch (IOException | RuntimeException e) {
        // ended
      }
    }
    return sum;
  }
}
