package dev.cryo.bench.serve;

import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The price of a durable route: the demo through cryo (one worker, checkpoints every second), the
 * same virtual users alternately adding to their counter ({@code POST /api/counter}, written
 * behind: the anchor) and adding a note ({@code POST /api/notes}, durable: answered once a
 * checkpoint holding it is forced to disk), closed-loop, one request at a time each, rounds
 * interleaved. At the end the run is drained, and the worker's log gives how many durable
 * checkpoints it forced in how many groups.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.DurableBench [USERS] [SECONDS] [ROUNDS]
 * </pre>
 *
 * Defaults: 32 users, 10 s per measured window (after 2 s of warm-up), 3 rounds.
 */
public final class DurableBench {

  private static final Pattern COOKIE = Pattern.compile("cryo_connection=([^;]+)");
  private static final Pattern PAGE = Pattern.compile("\"page\"\\s*:\\s*\"([^\"]+)\"");
  private static final Pattern GROUPS = Pattern.compile("forced (\\d+) durable checkpoints in"
      + " (\\d+) groups");

  private DurableBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 32;
    Duration measure = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 10);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    Path home = Files.createTempDirectory("cryo-durable-bench");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(1).maxWorkers(1).checkpoint(Duration.ofSeconds(1)).build();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads)
            .version(HttpClient.Version.HTTP_1_1).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      List<String[]> tabs = new ArrayList<>(); // {cookie, page}
      for (int i = 0; i < users; i++) {
        HttpResponse<String> opened = http.send(HttpRequest.newBuilder(base.resolve("/api/pages"))
            .header("content-type", "application/json").POST(BodyPublishers.ofString("{}"))
            .build(), BodyHandlers.ofString());
        Matcher cookie = COOKIE.matcher(String.join(";",
            opened.headers().allValues("set-cookie")));
        Matcher page = PAGE.matcher(opened.body());
        if (opened.statusCode() != 200 || !cookie.find() || !page.find()) {
          throw new IllegalStateException("a page did not open: " + opened.statusCode() + " "
              + opened.body());
        }
        tabs.add(new String[] {cookie.group(1), page.group(1)});
      }
      Duration warmUp = Duration.ofSeconds(2);
      for (int round = 1; round <= rounds; round++) {
        Window plain = load(http, threads, base, tabs, "/api/counter", warmUp, measure);
        Window durable = load(http, threads, base, tabs, "/api/notes", warmUp, measure);
        System.out.println("round " + round + ": counter (written behind) " + plain
            + " | note (durable) " + durable);
      }
      commander.drain(Duration.ofSeconds(30), line -> { });
    }
    try (var logs = Files.newDirectoryStream(home.resolve("workers"))) {
      for (Path log : logs) {
        Matcher groups = GROUPS.matcher(Files.readString(log));
        while (groups.find()) {
          long members = Long.parseLong(groups.group(1));
          long count = Long.parseLong(groups.group(2));
          System.out.println(String.format("%s: %,d durable checkpoints in %,d groups, %.2f a"
              + " group", log.getFileName(), members, count, members / (double) count));
        }
      }
    } finally {
      Scratch.delete(home);
    }
  }

  /** One measured window: answered requests, failures, latencies (microseconds). */
  private record Window(long requests, long errors, double seconds, Histogram latency) {
    @Override
    public String toString() {
      return String.format("%,.0f req/s, p50 %,.2f ms, p99 %,.2f ms, %d errors",
          requests / seconds, latency.getValueAtPercentile(50) / 1000.0,
          latency.getValueAtPercentile(99) / 1000.0, errors);
    }
  }

  private static Window load(HttpClient http, ExecutorService threads, URI base,
      List<String[]> tabs, String path, Duration warmUp, Duration measure) throws Exception {
    long from = System.nanoTime() + warmUp.toNanos();
    long to = from + measure.toNanos();
    List<Future<Window>> futures = new ArrayList<>();
    for (String[] tab : tabs) {
      futures.add(threads.submit(() -> {
        Histogram latency = new Histogram(60_000_000L, 3);
        long requests = 0;
        long errors = 0;
        int n = 0;
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path))
            .header("content-type", "application/json")
            .header("cookie", "cryo_connection=" + tab[0]);
        while (System.nanoTime() < to) {
          String body = path.endsWith("notes")
              ? "{\"page\":\"" + tab[1] + "\",\"text\":\"note " + n++ + "\"}"
              : "{\"page\":\"" + tab[1] + "\"}";
          long sent = System.nanoTime();
          int status;
          try {
            status = http.send(builder.copy().POST(BodyPublishers.ofString(body)).build(),
                BodyHandlers.discarding()).statusCode();
          } catch (java.io.IOException e) {
            status = -1;
          }
          long answered = System.nanoTime();
          if (sent >= from && answered <= to) {
            if (status == 200) {
              requests++;
              latency.recordValue(Math.max(1, (answered - sent) / 1000));
            } else {
              errors++;
            }
          }
        }
        return new Window(requests, errors, 0, latency);
      }));
    }
    Histogram all = new Histogram(60_000_000L, 3);
    long requests = 0;
    long errors = 0;
    for (Future<Window> future : futures) {
      Window one = future.get();
      requests += one.requests();
      errors += one.errors();
      all.add(one.latency());
    }
    return new Window(requests, errors, measure.toNanos() / 1e9, all);
  }
}
