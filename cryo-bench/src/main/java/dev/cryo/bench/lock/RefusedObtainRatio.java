package dev.cryo.bench.lock;

import dev.cryo.bench.Scratch;
import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.ProcessLock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NativeFSLockFactory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.SimpleFSLockFactory;

/**
 * The cost of a refused try, what a contender pays on each turn of Lucene's {@code LockStressTest}
 * while another process holds the lock: cryo's {@code ProcessLock.acquire(dir, Duration.ZERO)}
 * against a live holder in another JVM, beside Lucene's {@code NativeFSLockFactory} and {@code
 * SimpleFSLockFactory} refused by the same holder, in alternating blocks as {@link
 * InterleavedRatio} does (the median ratio over rounds). One child JVM holds all three locks for
 * the whole run.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.lock.RefusedObtainRatio [ROUNDS [BLOCK]]
 * </pre>
 *
 * <p>Defaults: 200 rounds of blocks of 200 tries, after 20 rounds of warm-up. Every try must be
 * refused; one that is not stops the run.
 */
public final class RefusedObtainRatio {

  private interface Attempt {
    boolean refused() throws IOException;
  }

  private RefusedObtainRatio() {}

  /** Runs the measurement, or (with {@code hold DIR}) is the holder; see the class documentation. */
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("hold")) {
      hold(Path.of(args[1]));
      return;
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int block = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    Path root = Files.createTempDirectory("cryo-bench-refused-");
    Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx32m", "-cp", System.getProperty("java.class.path"),
        RefusedObtainRatio.class.getName(), "hold", root.toString())
        .redirectErrorStream(true).start();
    try (BufferedReader said = new BufferedReader(
        new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      String line = said.readLine();
      if (!"held".equals(line)) {
        throw new IllegalStateException("the holder said " + line);
      }
      measure(root, rounds, block);
    } finally {
      holder.destroyForcibly().waitFor();
      Scratch.delete(root);
    }
  }

  private static void measure(Path root, int rounds, int block) throws IOException {
    Path cryo = root.resolve("cryo");
    try (FSDirectory nativeDirectory = new NIOFSDirectory(root.resolve("native"),
            NoLockFactory.INSTANCE);
        FSDirectory simpleDirectory = new NIOFSDirectory(root.resolve("simple"),
            NoLockFactory.INSTANCE)) {
      List<String> names = List.of("cryo", "luceneNativeFS", "luceneSimpleFS");
      Attempt[] attempts = {
        () -> {
          try {
            ProcessLock.acquire(cryo, Duration.ZERO, "refused").close();
            return false;
          } catch (LockBusyException expected) {
            return true;
          }
        },
        () -> refused(NativeFSLockFactory.INSTANCE, nativeDirectory),
        () -> refused(SimpleFSLockFactory.INSTANCE, simpleDirectory)
      };
      int warmup = 20;
      double[][] micros = new double[attempts.length][rounds];
      for (int round = -warmup; round < rounds; round++) {
        for (int which = 0; which < attempts.length; which++) {
          long start = System.nanoTime();
          for (int i = 0; i < block; i++) {
            if (!attempts[which].refused()) {
              throw new IllegalStateException(names.get(which) + " was not refused");
            }
          }
          if (round >= 0) {
            micros[which][round] = (System.nanoTime() - start) / 1e3 / block;
          }
        }
      }
      for (int which = 0; which < attempts.length; which++) {
        System.out.printf(Locale.ROOT, "%-16s median %7.1f us per refused try%n", names.get(which),
            median(micros[which]));
      }
      for (int other = 1; other < attempts.length; other++) {
        double[] ratios = new double[rounds];
        for (int round = 0; round < rounds; round++) {
          ratios[round] = micros[0][round] / micros[other][round];
        }
        Arrays.sort(ratios);
        System.out.printf(Locale.ROOT, "cryo / %-14s %.2fx (quartiles %.2f-%.2f)%n",
            names.get(other), ratios[rounds / 2], ratios[rounds / 4], ratios[3 * rounds / 4]);
      }
    }
  }

  private static boolean refused(org.apache.lucene.store.LockFactory factory, FSDirectory directory)
      throws IOException {
    try (Lock lock = factory.obtainLock(directory, "write.lock")) {
      return false;
    } catch (LockObtainFailedException expected) {
      return true;
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The holder: takes the three locks, says {@code held}, and keeps them until its input ends. */
  private static void hold(Path root) throws Exception {
    ProcessLock cryo = ProcessLock.acquire(Files.createDirectory(root.resolve("cryo")),
        Duration.ZERO, "the holder of RefusedObtainRatio");
    FSDirectory nativeDirectory = new NIOFSDirectory(
        Files.createDirectory(root.resolve("native")), NoLockFactory.INSTANCE);
    FSDirectory simpleDirectory = new NIOFSDirectory(
        Files.createDirectory(root.resolve("simple")), NoLockFactory.INSTANCE);
    try (ProcessLock held = cryo;
        Lock nativeLock = NativeFSLockFactory.INSTANCE.obtainLock(nativeDirectory, "write.lock");
        Lock simpleLock = SimpleFSLockFactory.INSTANCE.obtainLock(simpleDirectory, "write.lock")) {
      System.out.println("held");
      System.out.flush();
      while (System.in.read() >= 0) {
        // held until the measuring JVM goes
      }
    }
  }
}
