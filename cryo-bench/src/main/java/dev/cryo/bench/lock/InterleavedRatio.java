package dev.cryo.bench.lock;

import dev.cryo.bench.Scratch;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NativeFSLockFactory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.SimpleFSLockFactory;

/**
 * The ratios of {@link UncontendedLockBenchmark}, measured so that a busy machine disturbs them as
 * little as possible: the four contenders run in short alternating blocks (cryo, floor, Lucene
 * native, Lucene simple, cryo, …), each ratio is taken between blocks that ran within a few
 * milliseconds of each other, and the median over all rounds is reported. Load that comes and goes
 * then slows both sides of a ratio alike, where consecutive JMH benchmarks can see different loads.
 * Each block is timed twice: wall time, and the CPU time of the measuring thread (user + system,
 * which excludes the time the thread waited for a processor that other programs held). On a busy
 * machine the CPU-time ratio is the steadier of the two. A complement to JMH (which gives the
 * absolute figures and their errors), not a replacement.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.lock.InterleavedRatio [ROUNDS [BLOCK]]
 * </pre>
 *
 * <p>Defaults: 400 rounds of blocks of 200 operations, after 20 rounds of warm-up.
 */
public final class InterleavedRatio {

  private interface Operation {
    void run() throws IOException;
  }

  private InterleavedRatio() {}

  /** Runs the measurement and prints the median ratios; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int block = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    Path root = Files.createTempDirectory("cryo-bench-interleaved-");
    try {
      Path cryo = Files.createDirectory(root.resolve("cryo"));
      ProtocolFloor floor = new ProtocolFloor(Files.createDirectory(root.resolve("floor")));
      try (FSDirectory nativeDirectory = new NIOFSDirectory(
              Files.createDirectory(root.resolve("native")), NoLockFactory.INSTANCE);
          FSDirectory simpleDirectory = new NIOFSDirectory(
              Files.createDirectory(root.resolve("simple")), NoLockFactory.INSTANCE)) {
        String[] names = {"cryoProcessLock", "floor", "luceneNativeFS", "luceneSimpleFS"};
        Operation[] operations = {
          () -> ProcessLock.acquire(cryo, Duration.ZERO).close(),
          () -> {
            floor.acquire();
            floor.release();
          },
          () -> NativeFSLockFactory.INSTANCE.obtainLock(nativeDirectory, "write.lock").close(),
          () -> SimpleFSLockFactory.INSTANCE.obtainLock(simpleDirectory, "write.lock").close()
        };
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<double[]> wall = new ArrayList<>();
        List<double[]> cpu = new ArrayList<>();
        for (int round = -20; round < rounds; round++) {
          double[] wallNanos = new double[operations.length];
          double[] cpuNanos = new double[operations.length];
          for (int k = 0; k < operations.length; k++) {
            long startCpu = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            for (int i = 0; i < block; i++) {
              operations[k].run();
            }
            wallNanos[k] = (System.nanoTime() - start) / (double) block;
            cpuNanos[k] = (threads.getCurrentThreadCpuTime() - startCpu) / (double) block;
          }
          if (round >= 0) {
            wall.add(wallNanos);
            cpu.add(cpuNanos);
          }
        }
        System.out.printf(Locale.ROOT, "%d rounds of %d operations each, interleaved%n", rounds,
            block);
        System.out.printf(Locale.ROOT, "%-16s %14s %12s %14s%n", "", "wall us/op", "ops/s",
            "CPU us/op");
        for (int k = 0; k < names.length; k++) {
          int index = k;
          double wallMedian = median(wall.stream().mapToDouble(n -> n[index]).toArray());
          double cpuMedian = median(cpu.stream().mapToDouble(n -> n[index]).toArray());
          System.out.printf(Locale.ROOT, "%-16s %14.2f %,12.0f %14.2f%n", names[k],
              wallMedian / 1000, 1e9 / wallMedian, cpuMedian / 1000);
        }
        System.out.printf(Locale.ROOT, "%-34s %18s %26s%n", "ratio (median over rounds)",
            "wall (quartiles)", "CPU (quartiles)");
        printRatio("cryoProcessLock / floor", wall, cpu, 0, 1);
        printRatio("cryoProcessLock / luceneNativeFS", wall, cpu, 0, 2);
        printRatio("cryoProcessLock / luceneSimpleFS", wall, cpu, 0, 3);
        printRatio("floor / luceneNativeFS", wall, cpu, 1, 2);
      }
    } finally {
      Scratch.delete(root);
    }
  }

  /** Prints the medians, over rounds, of time(a) / time(b), with their quartiles. */
  private static void printRatio(String name, List<double[]> wall, List<double[]> cpu, int a,
      int b) {
    System.out.printf(Locale.ROOT, "%-34s %s %s%n", name, ratio(wall, a, b), ratio(cpu, a, b));
  }

  private static String ratio(List<double[]> rounds, int a, int b) {
    double[] ratios = rounds.stream().mapToDouble(n -> n[a] / n[b]).toArray();
    Arrays.sort(ratios);
    return String.format(Locale.ROOT, "%8.2fx (%.2f-%.2f)", median(ratios),
        ratios[ratios.length / 4], ratios[ratios.length * 3 / 4]);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
