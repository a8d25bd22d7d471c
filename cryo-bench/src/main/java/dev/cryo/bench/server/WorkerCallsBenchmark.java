package dev.cryo.bench.server;

import dev.cryo.freezer.Freezer;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Store;
import dev.cryo.server.Call;
import dev.cryo.server.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * Calls per second through the worker against the same work done directly on the registry, one
 * thread, on the realistic user placed on the worker: the difference is the worker's own overhead
 * (the request slot, the three clocks stamped up the chain, the application seam and its row lock).
 *
 * <ul>
 *   <li>{@code throughWorker}: {@code worker.call} of the example application's {@code increment}
 *       on the user's first page (a human event: all three clocks);
 *   <li>{@code directOnRegistry}: the page's row looked up in the registry, its lock taken, the
 *       same counter incremented in its store, the lock released.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WorkerCallsBenchmark {

  private static final String USER = "user@example.org";

  private Path root;
  private Worker worker;
  private RegisterRegistry registry;
  private Call increment;
  private String page;

  /** Places the realistic user on a fresh worker. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    root = Files.createTempDirectory("cryo-bench-calls-");
    worker = HandOverBench.worker("w", new Freezer(root.resolve("freezer")));
    RealisticTenant.place(worker, USER);
    registry = worker.registry();
    page = RealisticTenant.firstPage();
    increment = Call.userEvent(USER, "conn-1", page, "increment")
        .withArguments(Map.of("scope", "page", "key", "counter"));
  }

  /** Closes the worker and removes its freezer. */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    worker.close();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** Through the worker. */
  @Benchmark
  public Object throughWorker() {
    return worker.call(increment);
  }

  /** The same increment, directly on the registry. */
  @Benchmark
  public Object directOnRegistry() {
    PageRow row = registry.pageItems().get(page).orElseThrow();
    row.lock().lock();
    try {
      Store store = row.get(PageRow.STORE, Store.class);
      Object current = store.get("counter");
      long next = (current instanceof Number number ? number.longValue() : 0L) + 1;
      store.set("counter", next);
      return next;
    } finally {
      row.lock().unlock();
    }
  }
}
