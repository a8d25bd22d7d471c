package dev.cryo.bench.wire;

import dev.cryo.bench.LoadAverage;
import dev.cryo.bench.Scratch;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A call round trip through cryo-wire with 1 KiB each way, beside the floor: a bare Unix-socket
 * ping-pong of the same bytes in the same JVM (an echo thread and the calling thread). The two
 * run in the same process, interleaved in blocks (the order of the pair alternating), so the
 * load of any moment weighs on both; each round trip is recorded in an HdrHistogram.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.wire.WireRoundTrip \
 *     [--seconds 20] [--warmup 5] [--block 1000] [--payload 1024]
 * </pre>
 *
 * Besides the floor (a platform echo thread), two more contenders say where the wire's time goes:
 * {@code floor-virtual}, the same ping-pong with a virtual echo thread, and {@code floor-handoffs}
 * ({@link HandOffPingPong}), the ping-pong with the thread hand-offs of a wire's call (a reader
 * thread on each side, the echo written by a virtual thread, the caller woken through a future)
 * and none of the wire's code; {@code floor-selector}, the floor with both channels non-blocking
 * and each side waiting in a selector, as the wire's threads wait (the floor with the wire's kind of
 * threads and waits: platform threads on both sides, as the wire's caller and reader here). The
 * column {@code alloc B/trip} is what the whole process allocated per round trip during each
 * contender's blocks.
 */
public final class WireRoundTrip {

  /** Bytes of the wire's call frame around its payload: prelude 14 + header of about 28. */
  static final int FRAME_OVERHEAD = 42;

  private WireRoundTrip() {
  }

  /**
   * What one run measured: every round trip pooled per contender, and each round's p99 of each
   * contender's block ({@code roundTails.get(round)[contender]}, in the order of {@link #NAMES}).
   */
  record Result(Map<String, Histogram> histograms, Map<String, Long> cpuNanos,
      List<long[]> roundTails) {
    double ratio(String contender, double percentile) {
      return (double) histograms.get(contender).getValueAtPercentile(percentile)
          / histograms.get("floor").getValueAtPercentile(percentile);
    }

    /**
     * The contender's p99 over the floor's p99 in each round, each taken over the blocks that ran
     * back to back in that round, sorted: a spell of load weighs on both blocks of a pair, so
     * these ratios tell the wire's own tail apart from the machine's better than the pooled p99.
     */
    double[] pairedTailRatios(String contender) {
      int k = List.of(NAMES).indexOf(contender);
      return roundTails.stream().mapToDouble(tails -> (double) tails[k] / tails[0]).sorted()
          .toArray();
    }
  }

  /** The contenders, the floor first. */
  static final String[] NAMES = {"floor", "floor-virtual", "floor-handoffs", "wire",
      "floor-selector"};

  /** Runs the benchmark with the options of the command line and prints its table. */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>(Map.of("--seconds", "20", "--warmup", "5",
        "--block", "1000", "--payload", "1024", "--profile", ""));
    for (int i = 0; i < args.length; i += 2) {
      if (!options.containsKey(args[i]) || i + 1 >= args.length) {
        throw new IllegalArgumentException("usage: WireRoundTrip [--seconds S] [--warmup S]"
            + " [--block ROUND_TRIPS] [--payload BYTES] [--profile wire|floor]; got "
            + String.join(" ", args));
      }
      options.put(args[i], args[i + 1]);
    }
    if (!options.get("--profile").isEmpty()) {
      profile(options.get("--profile"),
          Duration.ofMillis((long) (Double.parseDouble(options.get("--seconds")) * 1000)),
          Integer.parseInt(options.get("--payload")));
      return;
    }
    run(Duration.ofMillis((long) (Double.parseDouble(options.get("--seconds")) * 1000)),
        Duration.ofMillis((long) (Double.parseDouble(options.get("--warmup")) * 1000)),
        Integer.parseInt(options.get("--block")), Integer.parseInt(options.get("--payload")),
        System.out);
  }

  /** Warms up, then measures for the given time; prints and returns the histograms. */
  static Result run(Duration measure, Duration warmup, int block, int payload, PrintStream out)
      throws Exception {
    String loadBefore = LoadAverage.now();
    Path scratch = Files.createTempDirectory("cryo-bench-wire-");
    Map<String, Histogram> histograms = new LinkedHashMap<>();
    try (SocketPingPong floor = new SocketPingPong(scratch.resolve("f.sock"),
            payload + FRAME_OVERHEAD, false, false);
        SocketPingPong virtualFloor = new SocketPingPong(scratch.resolve("v.sock"),
            payload + FRAME_OVERHEAD, true, false);
        SocketPingPong selectorFloor = new SocketPingPong(scratch.resolve("s.sock"),
            payload + FRAME_OVERHEAD, false, true);
        HandOffPingPong handOffs = new HandOffPingPong(scratch.resolve("h.sock"),
            payload + FRAME_OVERHEAD);
        WireEcho wire = new WireEcho(scratch.resolve("w.sock"), payload)) {
      Step[] steps = {floor::roundTrip, virtualFloor::roundTrip, handOffs::roundTrip,
          wire::roundTrip, selectorFloor::roundTrip};
      String[] names = NAMES;
      for (String name : names) {
        histograms.put(name, new Histogram(60_000_000_000L, 3));
      }
      long[] cpu = new long[steps.length];
      long[] allocated = new long[steps.length];
      rounds(steps, null, new long[steps.length], new long[steps.length], block, warmup,
          new ArrayList<>());
      List<long[]> roundTails = new ArrayList<>();
      int blocks = rounds(steps, histograms.values().toArray(Histogram[]::new), cpu, allocated,
          block, measure, roundTails);
      String loadAfter = LoadAverage.now();
      out.printf("cryo-wire round trip, %d-byte payload each way (floor: %d bytes each way), %d"
          + " blocks of %d per contender, interleaved; load average %s -> %s%n", payload,
          payload + FRAME_OVERHEAD, blocks, block, loadBefore, loadAfter);
      out.printf("%-15s %10s %10s %10s %10s %10s %12s %13s%n", "contender", "p50 us", "p90 us",
          "p99 us", "p99.9 us", "count", "cpu us/trip", "alloc B/trip");
      Map<String, Long> cpuNanos = new LinkedHashMap<>();
      for (int k = 0; k < names.length; k++) {
        Histogram h = histograms.get(names[k]);
        cpuNanos.put(names[k], cpu[k]);
        out.printf("%-15s %10.1f %10.1f %10.1f %10.1f %10d %12.1f %13d%n", names[k],
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
            h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getTotalCount(), cpu[k] / 1e3 / Math.max(1, h.getTotalCount()),
            allocated[k] / Math.max(1, h.getTotalCount()));
      }
      Result result = new Result(histograms, cpuNanos, roundTails);
      out.printf("wire / floor: p50 %.2fx, p99 %.2fx (target: at most 1.5x)%n",
          result.ratio("wire", 50), result.ratio("wire", 99));
      double[] paired = result.pairedTailRatios("wire");
      out.printf("wire / floor, p99 of the blocks paired in each round: median %.2fx, quartiles"
          + " %.2f-%.2fx, %d rounds (target: at most 1.5x)%n", quantile(paired, 0.5),
          quantile(paired, 0.25), quantile(paired, 0.75), paired.length);
      double[] selectorPaired = result.pairedTailRatios("floor-selector");
      out.printf("floor-selector / floor, p99 of the blocks paired in each round: median %.2fx,"
          + " quartiles %.2f-%.2fx (the wire's kind of wait alone)%n",
          quantile(selectorPaired, 0.5), quantile(selectorPaired, 0.25),
          quantile(selectorPaired, 0.75));
      for (String name : new String[] {"floor-virtual", "floor-handoffs", "floor-selector"}) {
        out.printf("%s / floor: p50 %.2fx, p99 %.2fx%n", name, result.ratio(name, 50),
            result.ratio(name, 99));
      }
      out.printf("wire / floor-handoffs: p50 %.2fx, p99 %.2fx (the wire's own code)%n",
          (double) histograms.get("wire").getValueAtPercentile(50)
              / histograms.get("floor-handoffs").getValueAtPercentile(50),
          (double) histograms.get("wire").getValueAtPercentile(99)
              / histograms.get("floor-handoffs").getValueAtPercentile(99));
      return result;
    } finally {
      Scratch.delete(scratch);
    }
  }

  /** Runs one contender alone for a while (for a profiler attached to the process). */
  private static void profile(String contender, Duration time, int payload) throws Exception {
    Path scratch = Files.createTempDirectory("cryo-bench-wire-");
    try (SocketPingPong floor = new SocketPingPong(scratch.resolve("f.sock"),
            payload + FRAME_OVERHEAD, false, false);
        WireEcho wire = new WireEcho(scratch.resolve("w.sock"), payload)) {
      Step step = contender.equals("wire") ? wire::roundTrip : floor::roundTrip;
      long deadline = System.nanoTime() + time.toNanos();
      long trips = 0;
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < 1000; i++) {
          step.roundTrip();
        }
        trips += 1000;
      }
      System.out.printf("%s: %d round trips in %s%n", contender, trips, time);
    } finally {
      Scratch.delete(scratch);
    }
  }

  private interface Step {
    void roundTrip() throws Exception;
  }

  /** The value at {@code q} (0 to 1) of sorted values, the nearest rank. */
  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
  }

  /**
   * Runs blocks of each step in turn (the order rotating) until the time is up; adds the process's
   * CPU time during each step's blocks to cpu (all its threads: the work of a round trip on both
   * sides, apart from the time spent waiting to be scheduled), the bytes the process allocated
   * meanwhile to allocated, and each round's p99 of every step's block to roundTails.
   */
  private static int rounds(Step[] steps, Histogram[] into, long[] cpu, long[] allocated,
      int block, Duration time, List<long[]> roundTails) throws Exception {
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
        java.lang.management.ManagementFactory.getThreadMXBean();
    long deadline = System.nanoTime() + time.toNanos();
    Histogram blockTimes = new Histogram(60_000_000_000L, 3);
    int rounds = 0;
    do {
      long[] tails = new long[steps.length];
      for (int k = 0; k < steps.length; k++) {
        int which = (k + rounds) % steps.length;
        blockTimes.reset();
        long cpuStart = os.getProcessCpuTime();
        long allocatedStart = threads.getTotalThreadAllocatedBytes();
        for (int i = 0; i < block; i++) {
          long start = System.nanoTime();
          steps[which].roundTrip();
          long took = System.nanoTime() - start;
          blockTimes.recordValue(took);
          if (into != null) {
            into[which].recordValue(took);
          }
        }
        cpu[which] += os.getProcessCpuTime() - cpuStart;
        allocated[which] += threads.getTotalThreadAllocatedBytes() - allocatedStart;
        tails[which] = blockTimes.getValueAtPercentile(99);
      }
      roundTails.add(tails);
      rounds++;
    } while (System.nanoTime() < deadline);
    return rounds;
  }
}
