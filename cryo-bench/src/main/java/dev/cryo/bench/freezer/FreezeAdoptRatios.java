package dev.cryo.bench.freezer;

import dev.cryo.bench.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.catalina.session.StandardSession;

/**
 * The contenders of {@link FreezeAdoptBenchmark}, interleaved: each round runs a batch of every
 * contender back to back (in an order that rotates), so that a change in the machine's load hits
 * all of them alike, and the ratios are taken within each round. It prints the median rate of each
 * contender and the median of the per-round ratios, which hold up on a busy machine far better than
 * rates measured minutes apart. A fourth contender, {@link ContractFloor}, does the least the
 * freezer's contract demands with bare file calls: it tells cryo's own overhead apart from what the
 * contract itself costs.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.freezer.FreezeAdoptRatios [ROUNDS [BATCH]]
 * </pre>
 */
public final class FreezeAdoptRatios {

  private static final String[] NAMES = {"cryo", "tomcatFileStore", "floor", "contractFloor"};

  private FreezeAdoptRatios() {}

  /** Runs {@code ROUNDS} (default 40) rounds of {@code BATCH} (default 300) users per contender. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    Path root = Files.createTempDirectory("cryo-bench-ratios-");
    try {
      CryoFreezeAdopt cryo = new CryoFreezeAdopt(root.resolve("cryo"));
      TomcatFileStoreSwap tomcat = new TomcatFileStoreSwap(root.resolve("tomcat"));
      StandardSession session = tomcat.session("0123456789ABCDEF0123456789ABCDEF");
      FileFloor floor = new FileFloor(Files.createDirectory(root.resolve("floor")),
          cryo.parcelBytes());
      ContractFloor contract = new ContractFloor(Files.createDirectory(root.resolve("contract")));
      Contender[] contenders = {
          () -> cryo.freezeAndAdopt("user@example.org"),
          () -> tomcat.saveLoadRemove(session),
          () -> floor.writeReadRemove("user"),
          () -> contract.freezeAndAdopt("user@example.org")};
      for (int warm = 0; warm < 10; warm++) {
        for (Contender contender : contenders) {
          time(contender, batch);
        }
      }
      double[][] rates = new double[NAMES.length][rounds];
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < NAMES.length; k++) {
          int c = (k + round) % NAMES.length;
          rates[c][round] = time(contenders[c], batch);
        }
      }
      double[] overTomcat = new double[rounds];
      double[] overFloor = new double[rounds];
      double[] overContract = new double[rounds];
      double[] contractOverTomcat = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        overTomcat[round] = rates[0][round] / rates[1][round];
        overFloor[round] = rates[2][round] / rates[0][round];
        overContract[round] = rates[3][round] / rates[0][round];
        contractOverTomcat[round] = rates[3][round] / rates[1][round];
      }
      System.out.printf("%d rounds of %d users per contender, medians:%n", rounds, batch);
      for (int c = 0; c < NAMES.length; c++) {
        System.out.printf("  %-16s %,10.0f users/s  (%.0f us each)%n", NAMES[c], median(rates[c]),
            1e6 / median(rates[c]));
      }
      System.out.printf("  cryo / tomcatFileStore  %.2fx   (target >= 1.5)%n", median(overTomcat));
      System.out.printf("  floor / cryo            %.2fx   (target <= 2)%n", median(overFloor));
      System.out.printf("  contractFloor / cryo    %.2fx   (cryo's own overhead)%n",
          median(overContract));
      System.out.printf("  contractFloor / tomcat  %.2fx   (the most any implementation of the"
          + " contract reaches)%n", median(contractOverTomcat));
    } finally {
      Scratch.delete(root);
    }
  }

  private interface Contender {
    Object run() throws Exception;
  }

  private static double time(Contender contender, int batch) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < batch; i++) {
      contender.run();
    }
    return batch / ((System.nanoTime() - start) / 1e9);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
