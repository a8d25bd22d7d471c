package dev.cryo.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.bench.Scratch;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A cookie-less flood against a real {@code cryo serve} whose one worker has a 256 MiB heap, with
 * a logged-in user clicking throughout (issue 23, item 1): every flood request makes a guest, so
 * what is measured is whether the runtime's bounds hold — the worker lives (same pid, no death),
 * its heap stays bounded, the user keeps his state (every click adds exactly one) at a p99 under
 * 100 ms, and the freezer's disk stays bounded and shrinks back once the empty guests expire.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.FloodBench [SECONDS] [FLOODERS] [CRYO_JAR] [AFTER_SECONDS] [SERVE_OPTION]...
 * </pre>
 *
 * Defaults: 300 s of flood from 16 concurrent clients, {@code cryo-cli/target/cryo.jar}; then 150
 * s more of the user alone, with {@code --frozen-empty-guest-ttl 1m}, to see the freezer shrink.
 * Further arguments are added to {@code cryo serve}'s (such as {@code --new-visitors-per-address
 * off}, to see the flood without the front's budget of new visitors).
 * Prints a sample every 10 s and a summary.
 */
public final class FloodBench {

  private static final ObjectMapper JSON = new ObjectMapper();

  private FloodBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    Duration flood = Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0]) : 300);
    int flooders = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    Path jar = Path.of(args.length > 2 ? args[2] : "cryo-cli/target/cryo.jar");
    Duration after = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 150);
    List<String> options = args.length > 4 ? List.of(args).subList(4, args.length) : List.of();
    Path home = Files.createTempDirectory("cryo-flood-bench");
    int port = freePort();
    int admin = freePort();
    List<String> command = new ArrayList<>(List.of(Path.of(
        System.getProperty("java.home"), "bin", "java").toString(), "-XX:+ExitOnOutOfMemoryError",
        "-jar", jar.toString(), "serve", "--home", home.resolve("home").toString(), "--port",
        Integer.toString(port), "--admin-port", Integer.toString(admin), "--workers", "1",
        "--max-workers", "1", "--worker-heap", "256m", "--frozen-empty-guest-ttl", "1m"));
    command.addAll(options);
    Process serve = new ProcessBuilder(command)
        .redirectErrorStream(true).redirectOutput(home.resolve("serve.log").toFile()).start();
    URI base = URI.create("http://127.0.0.1:" + port + "/");
    URI status = URI.create("http://127.0.0.1:" + admin + "/_cryo/status.json");
    ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    try (HttpClient http = HttpClient.newBuilder().executor(threads)
        .connectTimeout(Duration.ofSeconds(10)).build()) {
      awaitServing(http, base, serve);
      User anna = User.login(http, base);
      AtomicBoolean flooding = new AtomicBoolean(true);
      AtomicBoolean running = new AtomicBoolean(true);
      Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
      AtomicLong failures = new AtomicLong();
      List<java.util.concurrent.Future<?>> loops = new ArrayList<>();
      for (int i = 0; i < flooders; i++) {
        loops.add(threads.submit(() -> {
          while (flooding.get()) {
            try {
              HttpResponse<Void> reply = http.send(HttpRequest.newBuilder(base.resolve(
                  "/api/state")).timeout(Duration.ofSeconds(30)).GET().build(),
                  HttpResponse.BodyHandlers.discarding());
              statuses.computeIfAbsent(reply.statusCode(), s -> new AtomicLong())
                  .incrementAndGet();
            } catch (IOException e) {
              failures.incrementAndGet();
            }
          }
          return null;
        }));
      }
      Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
      Histogram window = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
      loops.add(threads.submit(() -> {
        while (running.get()) {
          anna.click(latency, window);
          Thread.sleep(100);
        }
        return null;
      }));
      long start = System.nanoTime();
      long end = start + flood.toNanos();
      long stop = end + after.toNanos();
      long maxHeap = 0;
      long maxFreezer = 0;
      long pid = -1;
      boolean sameWorker = true;
      long freezerAtFloodEnd = -1;
      long freezerLast = -1;
      while (System.nanoTime() < stop) {
        Thread.sleep(10_000);
        if (flooding.get() && System.nanoTime() >= end) {
          flooding.set(false);
        }
        JsonNode now = JSON.readTree(http.send(HttpRequest.newBuilder(status)
            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString())
            .body());
        JsonNode worker = now.path("workers").path(0);
        long heap = worker.path("heap_used_bytes").asLong();
        long freezer = now.path("freezer").path("bytes").asLong();
        if (pid < 0) {
          pid = worker.path("pid").asLong();
        }
        sameWorker &= pid == worker.path("pid").asLong() && now.path("workers").size() == 1;
        if (flooding.get()) {
          maxHeap = Math.max(maxHeap, heap);
          maxFreezer = Math.max(maxFreezer, freezer);
          freezerAtFloodEnd = freezer;
        }
        freezerLast = freezer;
        long sent = statuses.values().stream().mapToLong(AtomicLong::get).sum();
        double windowP99;
        synchronized (window) {
          windowP99 = window.getValueAtPercentile(99) / 1000.0;
          window.reset();
        }
        System.out.printf("t=%3ds %s sent %,d %s | worker %s heap %,d MiB / %,d, users %d |"
            + " freezer %,d KiB in %d folders | anna %d clicks, p99 %.1f ms (last 10 s)%n",
            (System.nanoTime() - start) / 1_000_000_000L, flooding.get() ? "flood" : "after",
            sent, statuses, worker.path("state").asText(), heap >> 20,
            worker.path("heap_max_bytes").asLong() >> 20, worker.path("users").asInt(),
            freezer >> 10, now.path("freezer").path("folders").asInt(), anna.clicks, windowP99);
      }
      running.set(false);
      for (java.util.concurrent.Future<?> loop : loops) {
        loop.get(60, TimeUnit.SECONDS);
      }
      long sent = statuses.values().stream().mapToLong(AtomicLong::get).sum();
      System.out.printf("%nflood: %,d requests in %d s from %d clients (%,.0f req/s), statuses %s,"
          + " %,d failed to connect or answer%n", sent, flood.toSeconds(), flooders,
          sent / (double) flood.toSeconds(), statuses, failures.get());
      System.out.printf("worker: %s through the run (pid %d); heap at most %,d MiB of 256"
          + " (sampled every 10 s)%n", sameWorker ? "the same one" : "NOT the same one", pid,
          maxHeap >> 20);
      System.out.printf("logged-in user: %d clicks, %s; p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          anna.clicks, anna.problems.isEmpty() ? "every one added exactly one" : "PROBLEMS "
              + anna.problems, latency.getValueAtPercentile(50) / 1000.0,
          latency.getValueAtPercentile(99) / 1000.0, latency.getMaxValue() / 1000.0);
      System.out.printf("freezer: at most %,d KiB during the flood, %,d KiB at its end, %,d KiB"
          + " %d s after it%n", maxFreezer >> 10, freezerAtFloodEnd >> 10, freezerLast >> 10,
          after.toSeconds());
    } finally {
      serve.destroy();
      if (!serve.waitFor(60, TimeUnit.SECONDS)) {
        serve.destroyForcibly();
      }
      threads.shutdownNow();
      Scratch.delete(home);
    }
  }

  /** The logged-in user: one cookie, one page, a counter that must go up by one per click. */
  private static final class User {
    final HttpClient http;
    final URI base;
    final String cookie;
    final String page;
    final List<String> problems = new ArrayList<>();
    long clicks;
    long counter = -1;

    private User(HttpClient http, URI base, String cookie, String page) {
      this.http = http;
      this.base = base;
      this.cookie = cookie;
      this.page = page;
    }

    static User login(HttpClient http, URI base) throws Exception {
      HttpResponse<String> opened = http.send(HttpRequest.newBuilder(base.resolve("/api/pages"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      String cookie = cookieOf(opened, null);
      String page = JSON.readTree(opened.body()).path("page").asText();
      HttpResponse<String> login = http.send(HttpRequest.newBuilder(base.resolve("/api/login"))
          .header("Cookie", "cryo_connection=" + cookie).header("Content-Type",
              "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"anna\",\"page\":\"" + page
              + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
      if (login.statusCode() != 200) {
        throw new IllegalStateException("the login answered " + login.statusCode() + ": "
            + login.body());
      }
      return new User(http, base, cookieOf(login, cookie), page);
    }

    void click(Histogram latency, Histogram window) throws InterruptedException {
      long began = System.nanoTime();
      try {
        HttpResponse<String> reply = http.send(HttpRequest.newBuilder(base.resolve(
            "/api/counter")).header("Cookie", "cryo_connection=" + cookie)
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString("{\"page\":\"" + page + "\"}")).build(),
            HttpResponse.BodyHandlers.ofString());
        long micros = Math.min((System.nanoTime() - began) / 1000,
            latency.getHighestTrackableValue());
        latency.recordValue(micros);
        synchronized (window) {
          window.recordValue(micros);
        }
        clicks++;
        if (reply.statusCode() != 200) {
          problems.add("click " + clicks + ": " + reply.statusCode());
          return;
        }
        JsonNode body = JSON.readTree(reply.body());
        long now = body.path("counter").asLong();
        if (!"anna".equals(body.path("user").asText()) || (counter >= 0 && now != counter + 1)) {
          problems.add("click " + clicks + ": " + reply.body());
        }
        counter = now;
      } catch (IOException e) {
        problems.add("click " + clicks + ": " + e);
      }
    }

    private static String cookieOf(HttpResponse<?> reply, String otherwise) {
      for (String value : reply.headers().allValues("set-cookie")) {
        if (value.startsWith("cryo_connection=")) {
          return value.substring("cryo_connection=".length(), value.indexOf(';'));
        }
      }
      return otherwise;
    }
  }

  private static void awaitServing(HttpClient http, URI base, Process serve) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      if (!serve.isAlive()) {
        throw new IllegalStateException("cryo serve exited " + serve.exitValue());
      }
      try {
        if (http.send(HttpRequest.newBuilder(base).build(), HttpResponse.BodyHandlers
            .discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("cryo serve did not serve within 120 s");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
