package dev.cryo.bench.serve;

import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * HTTP through cryo — front, commander, wire, worker JVM, reply — beside the same application in
 * one Jetty process with its state in plain memory ({@link PlainMemoryServer}), driven by the same
 * closed-loop {@link LoadGenerator} in the same run, rounds interleaved; then moves through the
 * commander (freeze on one worker, wake on another, served), timed one by one.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.HttpBench [USERS] [SECONDS] [ROUNDS] [MOVES]
 * </pre>
 *
 * Defaults: 200 users, 10 s per measured round (after 3 s of warm-up), 3 rounds of each, 500
 * moves. Prints one line per round and the ratio of the medians.
 */
public final class HttpBench {

  private static final Pattern COOKIE = Pattern.compile("cryo_connection=([^;]+)");

  private HttpBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Duration measure = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 10);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int moves = args.length > 3 ? Integer.parseInt(args[3]) : 500;
    Path home = Files.createTempDirectory("cryo-http-bench");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).build();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        PlainMemoryServer plain = new PlainMemoryServer(new DemoApplication(), 0)) {
      front.start();
      plain.start();
      URI cryo = URI.create("http://127.0.0.1:" + front.port() + "/");
      URI single = URI.create("http://127.0.0.1:" + plain.port() + "/");
      System.out.println("single process at " + single + ", cryo's front at " + cryo);
      Duration warmUp = Duration.ofSeconds(3);
      double[] cryoThroughput = new double[rounds];
      double[] plainThroughput = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        LoadGenerator.Result anchor = LoadGenerator.run(single, users, warmUp, measure);
        LoadGenerator.Result ours = LoadGenerator.run(cryo, users, warmUp, measure);
        plainThroughput[round] = anchor.throughput();
        cryoThroughput[round] = ours.throughput();
        System.out.println("round " + (round + 1) + ": single process " + anchor + " | cryo "
            + ours + " | ratio " + String.format("%.2f", ours.throughput()
                / anchor.throughput()));
      }
      System.out.println(String.format("median throughput: cryo %,.0f req/s, single process"
          + " %,.0f req/s: %.2fx (target >= 0.6x)", median(cryoThroughput),
          median(plainThroughput), median(cryoThroughput) / median(plainThroughput)));
      Histogram movesTaken = moves(cryo, moves);
      System.out.println(String.format("moves through the commander (freeze on A, wake on B,"
          + " served), %d: p50 %,d us, p99 %,d us, max %,d us (target p99 < 5,000 us)",
          movesTaken.getTotalCount(), movesTaken.getValueAtPercentile(50),
          movesTaken.getValueAtPercentile(99), movesTaken.getMaxValue()));
    } finally {
      Scratch.delete(home);
    }
  }

  /** {@code count} moves of one logged-in user, one at a time, each timed until it is served. */
  static Histogram moves(URI base, int count) throws IOException, InterruptedException {
    try (Mover mover = new Mover(base)) {
      return mover.moves(count);
    }
  }

  /**
   * One user moved through the front again and again: a page opened on one connection, logged in
   * as {@code mover}, once; each {@link #moves} call moves that same connection, so that a run
   * of many calls does not grow the user by a connection each. One caller at a time.
   */
  static final class Mover implements AutoCloseable {
    private final HttpClient http = HttpClient.newHttpClient();
    private final HttpRequest move;

    Mover(URI base) throws IOException, InterruptedException {
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(base.resolve("/api/pages"))
          .POST(BodyPublishers.ofString("{}")).build(), BodyHandlers.ofString());
      Matcher cookie = COOKIE.matcher(page.headers().firstValue("set-cookie").orElse(""));
      if (!cookie.find()) {
        http.close();
        throw new IOException("no cookie: " + page.statusCode() + " " + page.body());
      }
      String jar = "cryo_connection=" + cookie.group(1);
      HttpResponse<String> login = http.send(HttpRequest.newBuilder(base.resolve("/api/login"))
          .header("cookie", jar).header("content-type", "application/json")
          .POST(BodyPublishers.ofString("{\"user\":\"mover\"}")).build(), BodyHandlers.ofString());
      Matcher rotated = COOKIE.matcher(login.headers().firstValue("set-cookie").orElse(""));
      if (rotated.find()) { // a login rotates the cookie: the one before it is retired
        jar = "cryo_connection=" + rotated.group(1);
      }
      move = HttpRequest.newBuilder(base.resolve("/api/move")).header("cookie", jar)
          .POST(BodyPublishers.ofString("{}")).build();
    }

    /** {@code count} timed moves, after fifty that warm up and are not timed. */
    Histogram moves(int count) throws IOException, InterruptedException {
      Histogram histogram = new Histogram(60_000_000L, 3);
      for (int i = 0; i < count + 50; i++) {
        long start = System.nanoTime();
        HttpResponse<String> moved = http.send(move, BodyHandlers.ofString());
        long micros = (System.nanoTime() - start) / 1000;
        if (moved.statusCode() != 200) {
          throw new IOException("a move answered " + moved.statusCode() + ": " + moved.body());
        }
        if (i >= 50) { // the first fifty warm up
          histogram.recordValue(Math.max(1, micros));
        }
      }
      return histogram;
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /** The median of {@code values} (the upper one of an even count). */
  static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
