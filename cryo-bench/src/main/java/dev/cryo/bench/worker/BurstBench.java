package dev.cryo.bench.worker;

import dev.cryo.bench.Scratch;
import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelCodec;
import dev.cryo.freezer.SmileCodec;
import dev.cryo.worker.FreezeOutcome;
import dev.cryo.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A burst of calls on a frozen user: the realistic user is frozen, then {@code CALLS} threads call
 * for him at once on the other worker, with the verdict "frozen"; timed from the moment they are
 * let go to the answer of the last one. Beside it, the same wake with a single call, so that the
 * two can be compared: a burst that makes one disk trip costs about one wake. Counts the parcels
 * decoded per burst (one wake reads the user parcel and the 2 connection parcels: 3).
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.worker.BurstBench [ROUNDS [CALLS]]
 * </pre>
 */
public final class BurstBench {

  private static final String USER = "user@example.org";
  private static final Object EXPECTED = RealisticTenant.expectedUserStore();

  private BurstBench() {}

  /** Runs {@code ROUNDS} (default 300) bursts of {@code CALLS} (default 50) calls, and single wakes. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    int warmup = rounds / 5;
    Path root = Files.createTempDirectory("cryo-bench-burst-");
    CountingCodec codec = new CountingCodec();
    Freezer freezer = new Freezer(root.resolve("freezer"), codec);
    ExecutorService callers = Executors.newFixedThreadPool(calls);
    try (Worker a = HandOverBench.worker("a", freezer);
        Worker b = HandOverBench.worker("b", freezer)) {
      RealisticTenant.place(a, USER);
      long[] bursts = new long[rounds];
      long[] singles = new long[rounds];
      int most = 0;
      for (int i = 0; i < warmup + rounds; i++) {
        freeze(a);
        int before = codec.decoded.get();
        long burst = burst(b, callers, calls);
        most = Math.max(most, codec.decoded.get() - before);
        freeze(b);
        long start = System.nanoTime();
        check(RealisticTenant.readUserStore(a, USER, true));
        long single = System.nanoTime() - start;
        // The user is back on a, as at the start of the round.
        if (i >= warmup) {
          bursts[i - warmup] = burst;
          singles[i - warmup] = single;
        }
      }
      Percentiles burst = Percentiles.of(bursts);
      Percentiles single = Percentiles.of(singles);
      System.out.printf("burst of %d calls on a frozen user, until all are served: %s%n", calls,
          burst);
      System.out.printf("one call on a frozen user (the wake alone): %s%n", single);
      System.out.printf("median burst / median single wake: %.2f; parcels decoded per burst, at"
          + " most: %d%n", burst.medianMicros() / single.medianMicros(), most);
    } finally {
      callers.shutdownNow();
      Scratch.delete(root);
    }
  }

  private static void freeze(Worker worker) {
    FreezeOutcome outcome = worker.freezeUser(USER).join();
    if (outcome != FreezeOutcome.FROZEN) {
      throw new IllegalStateException("the freeze ended " + outcome);
    }
  }

  private static long burst(Worker worker, ExecutorService callers, int calls) throws Exception {
    CountDownLatch ready = new CountDownLatch(calls);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> answers = new ArrayList<>(calls);
    for (int c = 0; c < calls; c++) {
      answers.add(callers.submit(() -> {
        ready.countDown();
        go.await();
        return RealisticTenant.readUserStore(worker, USER, true);
      }));
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    for (Future<Object> answer : answers) {
      check(answer.get());
    }
    return System.nanoTime() - start;
  }

  private static void check(Object store) {
    if (!EXPECTED.equals(store)) {
      throw new IllegalStateException("a call did not see the user's store");
    }
  }

  /** The default codec, counting what it decodes: each decoded parcel is one read from disk. */
  private static final class CountingCodec implements ParcelCodec {
    private final SmileCodec codec = new SmileCodec();
    final AtomicInteger decoded = new AtomicInteger();

    @Override
    public String name() {
      return codec.name();
    }

    @Override
    public byte[] encode(Object payload) {
      return codec.encode(payload);
    }

    @Override
    public Object decode(byte[] bytes) throws IOException {
      decoded.incrementAndGet();
      return codec.decode(bytes);
    }
  }
}
