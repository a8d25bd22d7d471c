package dev.cryo.bench.serve;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load of the demo's JSON API: virtual users, each with a cookie of his own, open a
 * page and then add to its counter as fast as the server answers, one request at a time each.
 * Latencies are recorded in an HdrHistogram (microseconds) during the measured window only.
 *
 * <p>The same generator drives cryo and the single-process anchor in one run, so the two figures
 * differ only by the server.
 */
public final class LoadGenerator {

  private static final Pattern COOKIE = Pattern.compile("cryo_connection=([^;]+)");
  private static final Pattern PAGE = Pattern.compile("\"page\"\\s*:\\s*\"([^\"]+)\"");
  private static final Pattern COUNTER = Pattern.compile("\"counter\"\\s*:\\s*([0-9]+)");

  /**
   * What one load measured.
   *
   * @param requests requests answered 200 in the measured window
   * @param errors requests answered otherwise, or failed, in the measured window
   * @param seconds the measured window's length
   * @param latency the latencies of the answered requests, in microseconds
   */
  public record Result(long requests, long errors, double seconds, Histogram latency,
      long stateBreaks) {

    /** A result without a state check. */
    public Result(long requests, long errors, double seconds, Histogram latency) {
      this(requests, errors, seconds, latency, 0);
    }

    /** Requests per second. */
    public double throughput() {
      return requests / seconds;
    }

    /** The latency at {@code percentile}, in microseconds. */
    public long micros(double percentile) {
      return latency.getValueAtPercentile(percentile);
    }

    @Override
    public String toString() {
      return String.format("%,.0f req/s, p50 %,d us, p99 %,d us, %d errors", throughput(),
          micros(50), micros(99), errors);
    }
  }

  private LoadGenerator() {}

  /**
   * Runs {@code users} virtual users against {@code base} for {@code warmUp} then
   * {@code measure}.
   */
  public static Result run(URI base, int users, Duration warmUp, Duration measure)
      throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient client = HttpClient.newBuilder().executor(threads)
            .version(HttpClient.Version.HTTP_1_1).build()) {
      long start = System.nanoTime();
      long measureFrom = start + warmUp.toNanos();
      long measureTo = measureFrom + measure.toNanos();
      List<Future<long[]>> futures = new ArrayList<>();
      List<Histogram> histograms = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        Histogram histogram = new Histogram(60_000_000L, 3);
        histograms.add(histogram);
        futures.add(threads.submit(() -> user(client, base, histogram, measureFrom,
            () -> measureTo, null)));
      }
      Tally tally = Tally.of(futures, histograms, 60_000_000L);
      return new Result(tally.requests(), tally.errors(), measure.toNanos() / 1e9, tally.all());
    }
  }

  /**
   * Runs {@code users} virtual users against {@code base}: {@code warmUp}, then {@code during} on
   * the calling thread while they go on, measured from its start to its end. Every answer's
   * {@code counter} is checked to be one more than the user's last (his state kept): a break is
   * counted in {@link Result#stateBreaks()}.
   */
  public static Result runDuring(URI base, int users, Duration warmUp, Callable<?> during)
      throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient client = HttpClient.newBuilder().executor(threads)
            .version(HttpClient.Version.HTTP_1_1).build()) {
      long measureFrom = System.nanoTime() + warmUp.toNanos();
      java.util.concurrent.atomic.AtomicLong measureTo = new java.util.concurrent.atomic
          .AtomicLong(Long.MAX_VALUE);
      java.util.concurrent.atomic.AtomicLong breaks = new java.util.concurrent.atomic
          .AtomicLong();
      List<Future<long[]>> futures = new ArrayList<>();
      List<Histogram> histograms = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        Histogram histogram = new Histogram(600_000_000L, 3);
        histograms.add(histogram);
        futures.add(threads.submit(() -> user(client, base, histogram, measureFrom,
            measureTo::get, breaks)));
      }
      long wait = measureFrom - System.nanoTime();
      if (wait > 0) {
        java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait); // the warm-up's length
      }
      long started = System.nanoTime();
      try {
        during.call();
      } finally {
        measureTo.set(System.nanoTime());
      }
      Tally tally = Tally.of(futures, histograms, 600_000_000L);
      return new Result(tally.requests(), tally.errors(), (measureTo.get() - started) / 1e9,
          tally.all(), breaks.get());
    }
  }

  /** What the virtual users counted, summed, and their latencies in one histogram. */
  private record Tally(long requests, long errors, Histogram all) {
    static Tally of(List<Future<long[]>> futures, List<Histogram> histograms, long highest)
        throws Exception {
      long requests = 0;
      long errors = 0;
      for (Future<long[]> future : futures) {
        long[] counts = future.get();
        requests += counts[0];
        errors += counts[1];
      }
      Histogram all = new Histogram(highest, 3);
      histograms.forEach(all::add);
      return new Tally(requests, errors, all);
    }
  }

  private static long[] user(HttpClient client, URI base, Histogram histogram, long from,
      java.util.function.LongSupplier until, java.util.concurrent.atomic.AtomicLong breaks)
      throws IOException, InterruptedException {
    HttpResponse<String> opened = client.send(HttpRequest.newBuilder(base.resolve("/api/pages"))
        .POST(BodyPublishers.ofString("{}")).header("content-type", "application/json").build(),
        BodyHandlers.ofString());
    Matcher cookie = COOKIE.matcher(opened.headers().firstValue("set-cookie").orElse(""));
    Matcher page = PAGE.matcher(opened.body());
    if (opened.statusCode() != 200 || !cookie.find() || !page.find()) {
      throw new IOException("the server did not open a page: " + opened.statusCode() + " "
          + opened.body());
    }
    HttpRequest counter = HttpRequest.newBuilder(base.resolve("/api/counter"))
        .header("cookie", "cryo_connection=" + cookie.group(1))
        .header("content-type", "application/json")
        .POST(BodyPublishers.ofString("{\"page\":\"" + page.group(1) + "\"}")).build();
    long requests = 0;
    long errors = 0;
    long last = -1;
    while (true) {
      long sent = System.nanoTime();
      long to = until.getAsLong();
      if (sent >= to) {
        return new long[] {requests, errors};
      }
      int status;
      String body = "";
      try {
        HttpResponse<String> answer = client.send(counter, BodyHandlers.ofString());
        status = answer.statusCode();
        body = answer.body();
      } catch (IOException e) {
        status = -1;
      }
      long answered = System.nanoTime();
      to = until.getAsLong();
      if (breaks != null && status == 200) {
        Matcher value = COUNTER.matcher(body);
        long now = value.find() ? Long.parseLong(value.group(1)) : -2;
        if (last >= 0 && now != last + 1) {
          breaks.incrementAndGet();
        }
        last = now;
      }
      if (breaks != null && status != 200) {
        errors++; // with a state check, every failure counts, warm-up included
      } else if (sent >= from && answered <= to) {
        if (status == 200) {
          requests++;
          histogram.recordValue(Math.max(1, (answered - sent) / 1000));
        } else {
          errors++;
        }
      }
    }
  }
}
