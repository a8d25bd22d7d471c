package dev.cryo.bench.worker;

import dev.cryo.bench.Scratch;
import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.freezer.Freezer;
import dev.cryo.register.PageRow;
import dev.cryo.register.Store;
import dev.cryo.worker.FreezeOutcome;
import dev.cryo.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The worker's speed, one thread driving (the burst uses 50 callers):
 *
 * <ul>
 *   <li>{@code handOver} (sample time, µs): the realistic user frozen on one worker and woken on
 *       the other by a call carrying the verdict, which is served; the two workers alternate;
 *   <li>{@code callThroughWorker} against {@code sameWorkOnTheRegistry} (throughput): one call that
 *       increments a counter in a page's state, an HTTP call through the worker's application
 *       host (the request made, the user's turn, slot, clocks up the chain, the routes, typed state
 *       as plain data, row lock, the JSON reply) and the same increment done directly on the
 *       registry's row under its lock; the ratio is the worker's own overhead (not comparable with
 *       ratios measured through the worker's former untyped seam);
 *   <li>{@code burstOfFifty} (average time, µs): the user frozen, then 50 concurrent calls with the
 *       verdict on the other worker: the time until all 50 are served.
 * </ul>
 */
@State(Scope.Thread)
public class WorkerBenchmark {

  private static final String USER = "anna";
  private static final String CONNECTION = RealisticUser.CONNECTION_IDS.get(0);
  private String page;

  private Path root;
  private Worker[] workers;
  private int host;
  private ExecutorService callers;

  /** Two workers on one fresh freezer, the realistic user on the first. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    root = Files.createTempDirectory("cryo-bench-server-");
    Freezer freezer = new Freezer(root.resolve("freezer"));
    workers = new Worker[] {HandOverBench.worker("a", freezer), HandOverBench.worker("b", freezer)};
    page = RealisticTenant.place(workers[0], USER).get(0);
    host = 0;
    callers = Executors.newFixedThreadPool(50);
  }

  /** An increment of the first page's counter, with the verdict "frozen" if asked. */
  private Object increment(Worker worker, boolean frozen) {
    return RealisticTenant.read(RealisticTenant.serve(worker, USER, CONNECTION, frozen,
        "/increment", "page=" + page, null)).get("count").longValue();
  }

  /** Closes the workers and removes the freezer. */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    callers.shutdownNow();
    for (Worker worker : workers) {
      worker.close();
    }
    Scratch.delete(root);
  }

  /** Frozen on the current host, woken on the other, his call served there. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object handOver() {
    Worker from = workers[host];
    Worker to = workers[1 - host];
    if (from.freezeUser(USER).join() != FreezeOutcome.FROZEN) {
      throw new IllegalStateException("the user was not frozen on " + from.name());
    }
    host = 1 - host;
    Object served = increment(to, true);
    if (to.photo().users().get(USER).connections().size() != 2) {
      throw new IllegalStateException("the user arrived without his two connections");
    }
    return served;
  }

  /** One call through the worker. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Object callThroughWorker() {
    return increment(workers[host], false);
  }

  /** The same store work, directly on the registry's row under its lock. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Object sameWorkOnTheRegistry() {
    PageRow row = workers[host].registry().pageItems().get(page).orElseThrow();
    row.lock().lock();
    try {
      Store store = row.store(Store.class);
      Object current = store.get("Counter");
      long next = (current instanceof Map<?, ?> counter
          && counter.get("count") instanceof Number number ? number.longValue() : 0L) + 1;
      store.set("Counter", Map.of("count", next));
      return next;
    } finally {
      row.lock().unlock();
    }
  }

  /** Frozen, then 50 concurrent calls with the verdict on the other worker, until all are served. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public int burstOfFifty() throws Exception {
    Worker from = workers[host];
    Worker to = workers[1 - host];
    from.freezeUser(USER).join();
    host = 1 - host;
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> replies = new ArrayList<>(50);
    for (int i = 0; i < 50; i++) {
      replies.add(callers.submit(() -> {
        go.await();
        return increment(to, true);
      }));
    }
    go.countDown();
    int served = 0;
    for (Future<Object> reply : replies) {
      if (reply.get() instanceof Number) {
        served++;
      }
    }
    if (served != 50) {
      throw new IllegalStateException("only " + served + " of 50 calls were served");
    }
    return served;
  }
}
