package dev.cryo.bench.worker;

import dev.cryo.bench.Scratch;
import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.bench.freezer.TomcatFileStoreSwap;
import dev.cryo.freezer.Freezer;
import dev.cryo.worker.AppHost;
import dev.cryo.worker.FreezeOutcome;
import dev.cryo.worker.Worker;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.session.StandardSession;

/**
 * The hand-over: the realistic user frozen on one worker and woken on the other by his next call,
 * back and forth between two workers sharing one freezer; each hand-over is timed from the freeze
 * order to the answer of the call that woke him. Beside it, interleaved one to one, Tomcat's
 * {@code FileStore} saving and loading the equivalent session (the anchor of the freezer issue).
 * At the end the user's store is checked to have come through every hand-over intact.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.worker.HandOverBench [HANDOVERS [WARMUP]]
 * </pre>
 */
public final class HandOverBench {

  private static final String USER = "user@example.org";
  private static final Object EXPECTED = RealisticTenant.expectedUserStore();

  private HandOverBench() {}

  /** Runs {@code HANDOVERS} (default 2000) timed hand-overs after {@code WARMUP} (default 500). */
  public static void main(String[] args) throws Exception {
    int handOvers = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    Path root = Files.createTempDirectory("cryo-bench-handover-");
    Freezer freezer = new Freezer(root.resolve("freezer"));
    try (Worker a = worker("a", freezer); Worker b = worker("b", freezer)) {
      RealisticTenant.place(a, USER);
      TomcatFileStoreSwap tomcat = new TomcatFileStoreSwap(root.resolve("tomcat"));
      StandardSession session = tomcat.session("0123456789ABCDEF0123456789ABCDEF");
      long[] cryo = new long[handOvers];
      long[] anchor = new long[handOvers];
      Worker[] workers = {a, b};
      for (int i = 0; i < warmup + handOvers; i++) {
        Worker from = workers[i % 2];
        Worker to = workers[(i + 1) % 2];
        long start = System.nanoTime();
        FreezeOutcome outcome = from.freezeUser(USER).join();
        Object store = RealisticTenant.readUserStore(to, USER, true);
        long handedOver = System.nanoTime();
        tomcat.saveLoadRemove(session);
        long swapped = System.nanoTime();
        if (outcome != FreezeOutcome.FROZEN || !EXPECTED.equals(store)) {
          throw new IllegalStateException("hand-over " + i + " lost the user: " + outcome);
        }
        if (i >= warmup) {
          cryo[i - warmup] = handedOver - start;
          anchor[i - warmup] = swapped - handedOver;
        }
      }
      Percentiles ours = Percentiles.of(cryo);
      Percentiles theirs = Percentiles.of(anchor);
      System.out.printf("hand-over, freeze on one worker + wake on the other: %s%n", ours);
      System.out.printf("Tomcat FileStore save + load + remove of the session: %s%n", theirs);
      System.out.printf("median ratio cryo / Tomcat: %.2f (the hand-over also serves the call)%n",
          ours.medianMicros() / theirs.medianMicros());
    } finally {
      Scratch.delete(root);
    }
  }

  static Worker worker(String name, Freezer freezer) {
    return Worker.builder(name, freezer).group("bench").application(new AppHost(new BenchApplication()))
        .build();
  }
}
