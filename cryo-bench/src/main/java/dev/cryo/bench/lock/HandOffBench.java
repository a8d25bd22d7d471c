package dev.cryo.bench.lock;

import dev.cryo.lock.ProcessLock;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Hand-off latency across processes: how long after a holder starts releasing does the next waiting
 * process hold the lock. Several child JVMs contend for one lock directory; each measured hand-off
 * is {@code t_acquired(next) - t_release(previous)}, where the holder reads the clock just before
 * it calls {@code close()} and the next holder reads it just after its {@code acquire} returns.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.lock.HandOffBench
 *     [--processes 4] [--handoffs 2000] [--warmup 200] [--hold-micros 1000]
 *     [--seed-handoffs 100] [--jit-warmup 5000] [--locks cryo,seed]
 * </pre>
 *
 * <h2>The clock</h2>
 *
 * <p>On Linux, {@link System#nanoTime()} reads {@code CLOCK_MONOTONIC}, whose origin is the boot of
 * the machine, not the start of the JVM: values taken by different processes of one machine are
 * comparable. The harness does not take this on trust: each child reports its clock when it is
 * ready, and that value must lie between the parent's readings before the child was started and
 * after its report was seen; and every hand-off must be positive. Either failure aborts the run.
 *
 * <h2>The protocol of a child</h2>
 *
 * <p>Before the start, each child acquires and releases the lock of a private directory
 * {@code --jit-warmup} times (5,000 by default), so that the JIT has compiled the uncontended
 * path. Then, in a loop: acquire (waiting up to a minute); read the clock; take the next sequence
 * number from a memory-mapped file shared by all children (only the holder writes it); hold for
 * {@code --hold-micros} (so that the others are all waiting when it releases); read the clock;
 * release. Then it waits until another process has taken the lock before it contends again: every
 * measured hand-off goes to a process that was already waiting, never back to the releaser. The
 * first {@code --warmup} hand-offs are not counted. The parent also checks that no two holding
 * intervals overlap (a violated mutual exclusion), which it reports; for cryo it is a failure.
 *
 * <h2>The locks</h2>
 *
 * <ul>
 *   <li>{@code cryo}: {@link ProcessLock#acquire(Path, Duration)}, which waits on a file-change
 *       notification;
 *   <li>{@code seed}: {@link SeedPollingLock}, the seed's exclusive create with a fixed 100 ms poll
 *       (fewer hand-offs by default: each costs tens of milliseconds).
 * </ul>
 */
public final class HandOffBench {

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int GO = 0;
  private static final int SEQUENCE = 1;
  private static final int READY = 8;
  private static final int SLOTS = 8 + 64;
  private static final Duration LONG_WAIT = Duration.ofMinutes(1);

  private HandOffBench() {}

  /** The outcome of one lock's run. */
  record Result(String lock, int processes, int measured, double[] sortedMillis, int overlaps,
      double medianCloseMillis) {

    double percentile(double p) {
      if (sortedMillis.length == 0) {
        return Double.NaN;
      }
      int index = (int) Math.ceil(p / 100.0 * sortedMillis.length) - 1;
      return sortedMillis[Math.max(0, Math.min(index, sortedMillis.length - 1))];
    }
  }

  /**
   * Runs the harness for each lock named by {@code --locks} and prints one table.
   *
   * @param args see the class documentation
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("child")) {
      child(args);
      return;
    }
    int processes = 4;
    int handoffs = 2000;
    int warmup = 200;
    int holdMicros = 1000;
    int seedHandoffs = 100;
    int jitWarmup = 5000;
    List<String> locks = List.of("cryo", "seed");
    for (int i = 0; i < args.length; i += 2) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--processes" -> processes = Integer.parseInt(value);
        case "--handoffs" -> handoffs = Integer.parseInt(value);
        case "--warmup" -> warmup = Integer.parseInt(value);
        case "--hold-micros" -> holdMicros = Integer.parseInt(value);
        case "--seed-handoffs" -> seedHandoffs = Integer.parseInt(value);
        case "--jit-warmup" -> jitWarmup = Integer.parseInt(value);
        case "--locks" -> locks = List.of(value.split(","));
        default -> {
          System.err.println("unknown option " + args[i] + "; see the class documentation of "
              + HandOffBench.class.getName());
          System.exit(2);
        }
      }
    }
    List<Result> results = new ArrayList<>();
    for (String lock : locks) {
      boolean seed = lock.equals("seed");
      results.add(run(lock, processes, seed ? seedHandoffs : handoffs,
          seed ? Math.min(warmup, 10) : warmup, holdMicros, jitWarmup));
    }
    System.out.println();
    System.out.printf(Locale.ROOT, "hand-off latency, %d processes, hold %d us%n", processes,
        holdMicros);
    System.out.printf(Locale.ROOT, "%-26s %9s %10s %9s %9s %9s %9s %11s%n", "lock",
        "hand-offs", "median ms", "p90 ms", "p99 ms", "max ms", "overlaps", "close() ms");
    for (Result result : results) {
      System.out.printf(Locale.ROOT, "%-26s %9d %10.3f %9.3f %9.3f %9.3f %9d %11.3f%n",
          describe(result.lock()), result.measured(), result.percentile(50),
          result.percentile(90), result.percentile(99), result.percentile(100),
          result.overlaps(), result.medianCloseMillis());
    }
    System.out.println("(close() ms: the median time the releasing holder spent in close(),"
        + " which is part of each hand-off)");
    boolean failed = results.stream().anyMatch(r -> r.lock().equals("cryo") && r.overlaps() > 0);
    System.exit(failed ? 1 : 0);
  }

  private static String describe(String lock) {
    return switch (lock) {
      case "cryo" -> "cryo ProcessLock";
      case "seed" -> "seed model (100 ms poll)";
      default -> lock;
    };
  }

  /**
   * Runs one lock with {@code processes} children until {@code warmup + handoffs} hand-offs, each
   * child first taking and releasing a private lock {@code jitWarmup} times.
   */
  static Result run(String lock, int processes, int handoffs, int warmup, int holdMicros,
      int jitWarmup) throws IOException, InterruptedException {
    if (processes < 2 || processes > 64) {
      throw new IllegalArgumentException("between 2 and 64 processes");
    }
    Path work = Files.createTempDirectory("cryo-handoff-");
    try {
      Path lockDirectory = Files.createDirectory(work.resolve("lock"));
      Path shared = work.resolve("shared");
      int acquisitions = warmup + handoffs + 1;
      try (FileChannel channel = FileChannel.open(shared, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, SLOTS * 8L);
        List<Process> children = new ArrayList<>();
        long before = System.nanoTime();
        for (int i = 0; i < processes; i++) {
          children.add(new ProcessBuilder(javaCommand(lock, lockDirectory, shared, i, acquisitions,
              holdMicros, jitWarmup, work.resolve("out-" + i))).inheritIO().start());
        }
        awaitReady(map, processes, before, children);
        System.out.printf(Locale.ROOT, "%s: %d children ready, their clocks agree with this"
            + " one; starting %d acquisitions%n", lock, processes, acquisitions);
        LONGS.setVolatile(map, GO * 8, 1L);
        for (Process child : children) {
          if (!child.waitFor(30, TimeUnit.MINUTES) || child.exitValue() != 0) {
            children.forEach(Process::destroyForcibly);
            throw new IllegalStateException("child " + child.pid() + " of " + lock + " failed"
                + (child.isAlive() ? " (still running)" : " with status " + child.exitValue()));
          }
        }
      }
      return analyse(lock, processes, work, warmup);
    } finally {
      try (Stream<Path> all = Files.walk(work)) {
        for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      }
    }
  }

  private static List<String> javaCommand(String lock, Path lockDirectory, Path shared, int index,
      int acquisitions, int holdMicros, int jitWarmup, Path out) {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        HandOffBench.class.getName(), "child", lock, lockDirectory.toString(), shared.toString(),
        Integer.toString(index), Integer.toString(acquisitions), Integer.toString(holdMicros),
        Integer.toString(jitWarmup), out.toString());
  }

  private static void awaitReady(MappedByteBuffer map, int processes, long before,
      List<Process> children) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    for (int i = 0; i < processes; i++) {
      long childClock;
      while ((childClock = (long) LONGS.getVolatile(map, (READY + i) * 8)) == 0) {
        if (!children.get(i).isAlive()) {
          throw new IllegalStateException("child " + i + " died before it was ready");
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("child " + i + " was not ready within two minutes");
        }
        Thread.sleep(5);
      }
      long after = System.nanoTime();
      if (childClock < before || childClock > after) {
        throw new IllegalStateException("the clock of child " + i + " (" + childClock
            + ") is not between this process's readings " + before + " and " + after
            + ": System.nanoTime() is not comparable across processes here");
      }
    }
  }

  private static Result analyse(String lock, int processes, Path work, int warmup)
      throws IOException {
    List<long[]> holds = new ArrayList<>();
    for (int i = 0; i < processes; i++) {
      for (String line : Files.readAllLines(work.resolve("out-" + i))) {
        String[] fields = line.split(" ");
        holds.add(new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]),
            Long.parseLong(fields[2]), Long.parseLong(fields[3])});
      }
    }
    holds.sort(Comparator.comparingLong(hold -> hold[1]));
    int overlaps = 0;
    List<Double> latencies = new ArrayList<>();
    List<Double> closes = new ArrayList<>();
    for (int k = 1; k < holds.size(); k++) {
      long[] previous = holds.get(k - 1);
      long[] next = holds.get(k);
      long gap = next[1] - previous[2];
      if (gap <= 0 || next[0] != previous[0] + 1) {
        if (overlaps++ < 3) {
          System.out.printf(Locale.ROOT, "%s: overlap: acquisition %d held from %d to %d ns,"
                  + " acquisition %d from %d to %d ns%n", lock, previous[0], previous[1],
              previous[2], next[0], next[1], next[2]);
        }
        continue;
      }
      if (next[0] > warmup + 1) {
        latencies.add(gap / 1e6);
        closes.add((previous[3] - previous[2]) / 1e6);
      }
    }
    double[] sorted = latencies.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    double[] sortedCloses = closes.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sortedCloses);
    return new Result(lock, processes, sorted.length, sorted, overlaps,
        sortedCloses.length == 0 ? Double.NaN : sortedCloses[sortedCloses.length / 2]);
  }

  private static void child(String[] args) throws Exception {
    String lock = args[1];
    Path lockDirectory = Path.of(args[2]);
    Path shared = Path.of(args[3]);
    int index = Integer.parseInt(args[4]);
    long acquisitions = Long.parseLong(args[5]);
    long holdNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[6]));
    int jitWarmup = Integer.parseInt(args[7]);
    Path out = Path.of(args[8]);
    List<long[]> records = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(shared, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, SLOTS * 8L);
      // Compile the lock's uncontended path before the start, on a private directory, so that the
      // hand-offs measure the lock rather than the interpreter.
      Path warm = Files.createDirectories(out.resolveSibling("warm-" + index));
      for (int i = 0; i < jitWarmup; i++) {
        close(open(lock, warm));
      }
      LONGS.setVolatile(map, (READY + index) * 8, System.nanoTime());
      while ((long) LONGS.getVolatile(map, GO * 8) == 0) {
        LockSupport.parkNanos(100_000);
      }
      while (true) {
        AutoCloseable held = open(lock, lockDirectory);
        long acquired = System.nanoTime();
        long sequence = (long) LONGS.getVolatile(map, SEQUENCE * 8) + 1;
        LONGS.setVolatile(map, SEQUENCE * 8, sequence);
        if (sequence <= acquisitions) {
          LockSupport.parkNanos(holdNanos);
        }
        long release = System.nanoTime();
        close(held);
        long closed = System.nanoTime();
        if (sequence > acquisitions) {
          break;
        }
        records.add(new long[] {sequence, acquired, release, closed});
        if (sequence == acquisitions) {
          break;
        }
        while ((long) LONGS.getVolatile(map, SEQUENCE * 8) == sequence) {
          LockSupport.parkNanos(100_000);
        }
      }
    }
    try (BufferedWriter writer = Files.newBufferedWriter(out)) {
      for (long[] record : records) {
        writer.write(record[0] + " " + record[1] + " " + record[2] + " " + record[3] + "\n");
      }
    }
  }

  private static AutoCloseable open(String lock, Path directory) throws Exception {
    return switch (lock) {
      case "cryo" -> ProcessLock.acquire(directory, LONG_WAIT);
      case "seed" -> SeedPollingLock.acquire(directory, LONG_WAIT);
      default -> throw new IllegalArgumentException("unknown lock " + lock);
    };
  }

  private static void close(AutoCloseable held) throws Exception {
    held.close();
  }
}
