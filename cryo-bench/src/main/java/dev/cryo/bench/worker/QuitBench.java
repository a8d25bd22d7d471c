package dev.cryo.bench.worker;

import dev.cryo.app.Response;
import dev.cryo.bench.LoadAverage;
import dev.cryo.bench.ProcessCpu;
import dev.cryo.bench.Scratch;
import dev.cryo.freezer.Freezer;
import dev.cryo.wire.protocol.AnnouncementMessage;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.worker.AppHost;
import dev.cryo.worker.QuitReport;
import dev.cryo.worker.Worker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A worker's quit alone, in one JVM (no wire, no commander): {@code USERS} users of the demo
 * application with the drain benchmark's state (each logged in on two connections, five counted
 * pages on each) are placed on a worker built as a worker process builds its own (the system
 * schedule, two disk threads), and the worker quits into its freezer with no gate; the time from
 * the order to the report is the quit's. Each announcement is encoded as the wire would carry it,
 * then dropped. Rounds alternate the quit's departures at once: 1 (a departure after another, the
 * loop as it was) and {@code AT_ONCE} (default {@value Worker.Builder#QUIT_DEPARTURES_AT_ONCE}),
 * so both are measured in the same minutes. With {@code -Dcryo.bench.quitSerial=false} only the
 * {@code AT_ONCE} rounds run: to compare two builds, run their jars one after the other. Each round
 * also prints the processor time the JVM used over the quit (every thread's, the JIT's included).
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.worker.QuitBench [USERS [ROUNDS [AT_ONCE]]]
 * </pre>
 *
 * Defaults: 3,000 users, 3 rounds of each.
 */
public final class QuitBench {

  private static final Pattern PAGE = Pattern.compile("\"page\"\\s*:\\s*\"([^\"]+)\"");
  private static final int PAGES_PER_CONNECTION = 5;
  private static final int MAKERS = 4;
  /** The system property that, set to false, skips the rounds one at a time. */
  static final String SERIAL_PROPERTY = "cryo.bench.quitSerial";

  private QuitBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 3_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int atOnce = args.length > 2 ? Integer.parseInt(args[2])
        : Worker.Builder.QUIT_DEPARTURES_AT_ONCE;
    System.out.printf("quit of %,d demo users (2 connections, %d pages each), %d rounds, %s%n",
        users, PAGES_PER_CONNECTION, rounds, LoadAverage.now());
    boolean serialToo = !"false".equals(System.getProperty(SERIAL_PROPERTY));
    double[] serial = new double[rounds];
    double[] parallel = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      for (int at : serialToo ? new int[] {1, atOnce} : new int[] {atOnce}) {
        Took took = quit(users, at);
        double seconds = took.seconds();
        (at == 1 && serialToo ? serial : parallel)[round] = seconds;
        System.out.printf("  round %d, %d at once: %.2f s (%,.0f users/s), CPU %.2f s, %s%n",
            round + 1, at, seconds, users / seconds, took.cpuSeconds(), LoadAverage.now());
      }
    }
    if (!serialToo) {
      return;
    }
    double ratio = 0;
    for (int round = 0; round < rounds; round++) {
      ratio += serial[round] / parallel[round];
    }
    System.out.printf("mean ratio, 1 at once / %d at once: %.2fx%n", atOnce, ratio / rounds);
  }

  /** A quit's wall time and the processor time the JVM used over it, in seconds. */
  private record Took(double seconds, double cpuSeconds) {}

  /** The application host of each worker measured. */
  private static final Map<Worker, AppHost> HOSTS = new java.util.concurrent.ConcurrentHashMap<>();

  /** One worker filled with {@code users}, quit with {@code atOnce}; what the quit took. */
  private static Took quit(int users, int atOnce) throws Exception {
    Path root = Files.createTempDirectory("cryo-bench-quit-");
    AtomicLong wireBytes = new AtomicLong();
    AppHost host = AppHost.load("dev.cryo.demo.DemoApplication", null);
    try (Worker worker = Worker.builder("bench", new Freezer(root.resolve("freezer")))
        .group("bench").application(host)
        .listener(a -> wireBytes.addAndGet(ProtocolCodec.write(new AnnouncementMessage(
            a.sequence(), a.kind().code(), a.user(), a.keys(), a.detail(), a.generation())).length))
        .quitDeparturesAtOnce(atOnce).build()) {
      HOSTS.put(worker, host);
      try (ExecutorService makers = Executors.newFixedThreadPool(MAKERS)) {
        List<Future<?>> made = new java.util.ArrayList<>();
        for (int i = 0; i < users; i++) {
          int n = i;
          made.add(makers.submit(() -> user(worker, n)));
        }
        for (Future<?> one : made) {
          one.get();
        }
      }
      System.gc();
      long pid = ProcessHandle.current().pid();
      long cpu = ProcessCpu.nanos(pid);
      long begun = System.nanoTime();
      QuitReport report = worker.quit(worker.freezer(), Duration.ZERO, Duration.ofSeconds(5))
          .get();
      long took = System.nanoTime() - begun;
      double cpuSeconds = (ProcessCpu.nanos(pid) - cpu) / 1e9;
      if (report.frozen() != users || report.failed() != 0) {
        throw new IllegalStateException("the quit froze " + report.frozen() + " of " + users
            + " users (" + report.failed() + " failed)");
      }
      return new Took(took / 1e9, cpuSeconds);
    } finally {
      HOSTS.clear();
      Scratch.delete(root);
    }
  }

  /** User {@code n}: two connections, each logged in as him, with five counted pages each. */
  private static Void user(Worker worker, int n) {
    for (int c = 0; c < 2; c++) {
      String connection = "b" + n + "-" + c;
      for (int p = 0; p < PAGES_PER_CONNECTION; p++) {
        Matcher matcher = PAGE.matcher(post(worker, connection, "/api/pages", "{}"));
        if (!matcher.find()) {
          throw new IllegalStateException("no page in the reply");
        }
        post(worker, connection, "/api/counter", "{\"page\":\"" + matcher.group(1) + "\"}");
      }
      post(worker, connection, "/api/login", "{\"user\":\"user" + n + "\"}");
    }
    return null;
  }

  private static String post(Worker worker, String connection, String path, String body) {
    Response reply = HOSTS.get(worker).serve(worker, new HttpCall(null, connection, Grant.ALONE,
        "POST", path, "", List.of(List.of("Content-Type", "application/json")),
        body.getBytes(StandardCharsets.UTF_8), null));
    if (reply.status() != 200 && reply.status() != 303) {
      throw new IllegalStateException("answered " + reply.status() + ": "
          + new String(reply.body(), StandardCharsets.UTF_8));
    }
    return new String(reply.body(), StandardCharsets.UTF_8);
  }
}
