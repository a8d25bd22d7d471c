package dev.cryo.bench.serve;

import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.ReloadOutcome;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * A rolling reload of 2 workers holding many users, under load: the request latency while it runs
 * beside the latency of the same load just before it (the anchor: the same server, not
 * reloading), the longest wait of a request (held while its user moved), and failures and state
 * breaks (both must be zero).
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.ReloadBench [USERS] [ACTIVE] [SECONDS]
 * </pre>
 *
 * {@code USERS} (default 5,000) users are born first, each with a page; then
 * {@code ACTIVE} (default 50) load users run for {@code SECONDS} (default 10) before the reload,
 * then again during it.
 */
public final class ReloadBench {

  private ReloadBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int active = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    Duration before = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 10);
    Path home = Files.createTempDirectory("cryo-reload-bench");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(2).maxWorkers(4).hold(Duration.ofSeconds(120)).build();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      long born = System.nanoTime();
      populate(base, users);
      System.out.printf("%,d users born in %.1f s; %s%n", users,
          (System.nanoTime() - born) / 1e9, commander.status().workers());
      LoadGenerator.Result still = LoadGenerator.runDuring(base, active, Duration.ofSeconds(3),
          () -> {
            Thread.sleep(before.toMillis()); // the anchor's window: the same load, no reload
            return null;
          });
      ReloadOutcome[] outcome = new ReloadOutcome[1];
      LoadGenerator.Result during = LoadGenerator.runDuring(base, active, Duration.ofSeconds(3),
          () -> outcome[0] = commander.reload(null));
      System.out.println("before the reload: " + still + ", max " + still.latency()
          .getMaxValue() + " us, state breaks " + still.stateBreaks());
      System.out.println("during the reload: " + during + ", max (longest held request) "
          + during.latency().getMaxValue() + " us, state breaks " + during.stateBreaks());
      System.out.printf("reload: %s; %d ms; p50 ratio %.2f, p99 ratio %.2f%n",
          outcome[0].message(), outcome[0].millis(),
          (double) during.micros(50) / still.micros(50),
          (double) during.micros(99) / still.micros(99));
    }
  }

  /** Births {@code users} users, each with a page and one counter step, 64 at a time. */
  private static void populate(URI base, int users) throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient client = HttpClient.newBuilder().executor(threads)
            .version(HttpClient.Version.HTTP_1_1).build()) {
      Semaphore window = new Semaphore(64);
      List<Future<Integer>> births = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        window.acquire();
        births.add(threads.submit(() -> {
          try {
            HttpResponse<String> opened = client.send(HttpRequest.newBuilder(
                base.resolve("/api/pages")).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .header("content-type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
            return opened.statusCode();
          } finally {
            window.release();
          }
        }));
      }
      for (Future<Integer> birth : births) {
        if (birth.get() != 200) {
          throw new IllegalStateException("a birth was answered " + birth.get());
        }
      }
    }
  }
}
