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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.LongSupplier;
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

  /** How long the virtual users may take to open their pages before a measured load gives up. */
  private static final Duration OPENING_BOUND = Duration.ofMinutes(5);

  private LoadGenerator() {}

  /**
   * Runs {@code users} virtual users against {@code base} for {@code warmUp} then
   * {@code measure}.
   */
  public static Result run(URI base, int users, Duration warmUp, Duration measure)
      throws Exception {
    long measureFrom = System.nanoTime() + warmUp.toNanos();
    long measureTo = measureFrom + measure.toNanos();
    List<Result> results = load(base, users, new AtomicLongArray(new long[] {measureFrom}),
        () -> measureTo, 60_000_000L, false, false, opened -> () -> {
          long wait = measureTo - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait); // the measured window's end
          }
          return null;
        });
    Result window = results.get(0);
    return new Result(window.requests(), window.errors(), measure.toNanos() / 1e9,
        window.latency());
  }

  /**
   * Runs {@code users} virtual users against {@code base}: {@code warmUp}, then {@code during} on
   * the calling thread while they go on, measured from its start to its end. Every answer's
   * {@code counter} is checked to be one more than the user's last (his state kept): a break is
   * counted in {@link Result#stateBreaks()}.
   */
  public static Result runDuring(URI base, int users, Duration warmUp, Callable<?> during)
      throws Exception {
    Windows windows = checked(base, users, warmUp, Duration.ZERO, during, false);
    Result warm = windows.before(); // empty but for the warm-up's failures and breaks
    Result measured = windows.during();
    return new Result(measured.requests(), warm.errors() + measured.errors(), measured.seconds(),
        measured.latency(), warm.stateBreaks() + measured.stateBreaks());
  }

  /**
   * Two windows of one steady load.
   *
   * @param before the window just before the action, the same load with nothing else going on
   * @param during the window from the action's start to its end
   */
  public record Windows(Result before, Result during) {}

  /**
   * Runs {@code users} virtual users against {@code base}, checking their state as
   * {@link #runDuring} does: {@code warmUp}, then a window of {@code before} measured on its own
   * (the anchor: the same load, nothing else going on), then {@code during} on the calling thread
   * while they go on, measured from its start to its end. The same virtual users run through both
   * windows without a pause. The warm-up begins once every virtual user has opened his page (a
   * loaded machine may take seconds to open many). A request counts in the window it was sent in,
   * however late its answer (a request held through the end of the action is measured with it); a
   * failure or a break in the warm-up counts in the first window.
   */
  public static Windows runBeforeAndDuring(URI base, int users, Duration warmUp, Duration before,
      Callable<?> during) throws Exception {
    return checked(base, users, warmUp, before, during, true);
  }

  private static Windows checked(URI base, int users, Duration warmUp, Duration before,
      Callable<?> during, boolean afterOpening) throws Exception {
    AtomicLongArray starts = new AtomicLongArray(new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
    AtomicLong duringTo = new AtomicLong(Long.MAX_VALUE);
    long[] started = new long[1];
    if (!afterOpening) { // the warm-up from now, as the load starts
      starts.set(0, System.nanoTime() + warmUp.toNanos());
      starts.set(1, starts.get(0) + before.toNanos());
    }
    List<Result> results = load(base, users, starts, duringTo::get, 600_000_000L, true,
        afterOpening, opened -> () -> {
          if (afterOpening) {
            if (!opened.await(OPENING_BOUND.toSeconds(), TimeUnit.SECONDS)) {
              throw new IllegalStateException("the virtual users did not open their pages within "
                  + OPENING_BOUND + " (" + opened.getCount() + " of " + users + " left)");
            }
            starts.set(0, System.nanoTime() + warmUp.toNanos());
            starts.set(1, starts.get(0) + before.toNanos());
          }
          long wait = starts.get(1) - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait); // the warm-up's and the first window's length
          }
          started[0] = System.nanoTime();
          try {
            return during.call();
          } finally {
            duringTo.set(System.nanoTime());
          }
        });
    Result first = results.get(0);
    Result second = results.get(1);
    return new Windows(new Result(first.requests(), first.errors(), before.toNanos() / 1e9,
        first.latency(), first.stateBreaks()), new Result(second.requests(), second.errors(),
        (duringTo.get() - started[0]) / 1e9, second.latency(), second.stateBreaks()));
  }

  /**
   * The load itself: {@code users} virtual users until {@code until}, while the action made of
   * {@code opened} (counted down once per virtual user as he has opened his page, or failed to)
   * runs on the calling thread; one result per window, window {@code i} from {@code starts[i]} to
   * the next start (the last to {@code until}), read as they go (the action may set them). A
   * request is measured when it was sent and answered within its window, or, {@code bySent}, when
   * it was sent within it. Each result's {@code seconds} are left to the caller (zero here).
   */
  private static List<Result> load(URI base, int users, AtomicLongArray starts,
      LongSupplier until, long highest, boolean checked, boolean bySent,
      Function<CountDownLatch, Callable<?>> action) throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient client = HttpClient.newBuilder().executor(threads)
            .version(HttpClient.Version.HTTP_1_1).build()) {
      CountDownLatch opened = new CountDownLatch(users);
      List<Future<Window[]>> futures = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        Window[] windows = new Window[starts.length()];
        for (int w = 0; w < windows.length; w++) {
          int next = w + 1;
          windows[w] = new Window(starts, w, next < windows.length ? () -> starts.get(next)
              : until, new Histogram(highest, 3));
        }
        futures.add(threads.submit(() -> user(client, base, windows, until, checked, bySent,
            opened)));
      }
      action.apply(opened).call();
      List<Result> results = new ArrayList<>();
      for (int w = 0; w < starts.length(); w++) {
        long requests = 0;
        long errors = 0;
        long breaks = 0;
        Histogram all = new Histogram(highest, 3);
        for (Future<Window[]> future : futures) {
          Window window = future.get()[w];
          requests += window.requests;
          errors += window.errors;
          breaks += window.breaks;
          all.add(window.latency);
        }
        results.add(new Result(requests, errors, 0, all, breaks));
      }
      return results;
    }
  }

  /** What one virtual user counted in one window; written by his thread only. */
  private static final class Window {
    private final AtomicLongArray starts;
    private final int index;
    final LongSupplier until;
    final Histogram latency;
    long requests;
    long errors;
    long breaks;

    Window(AtomicLongArray starts, int index, LongSupplier until, Histogram latency) {
      this.starts = starts;
      this.index = index;
      this.until = until;
      this.latency = latency;
    }

    long from() {
      return starts.get(index);
    }
  }

  /** The window a request sent at {@code sent} belongs to; the first for the warm-up. */
  private static Window sentIn(Window[] windows, long sent) {
    for (int w = windows.length - 1; w > 0; w--) {
      if (sent >= windows[w].from()) {
        return windows[w];
      }
    }
    return windows[0];
  }

  /** The most times a user tries to open his page when the connection fails under it. */
  static final int OPEN_ATTEMPTS = 3;

  /**
   * Opens a page for a new virtual user, trying again (up to {@link #OPEN_ATTEMPTS} in all) when
   * the request fails on its connection: the client's pool may hand it a kept-alive connection
   * the server closed meanwhile, and it does not retry a POST itself. A page opened by an attempt
   * whose answer was lost stays unused; the run goes on with the one answered.
   */
  private static HttpResponse<String> open(HttpClient client, URI base)
      throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(base.resolve("/api/pages"))
        .POST(BodyPublishers.ofString("{}")).header("content-type", "application/json").build();
    for (int attempt = 1; ; attempt++) {
      try {
        return client.send(request, BodyHandlers.ofString());
      } catch (IOException e) {
        if (attempt == OPEN_ATTEMPTS) {
          throw new IOException("a virtual user could not open his page in " + attempt
              + " attempts: " + e.getMessage(), e);
        }
        System.err.printf("a virtual user's page at %s did not open (%s); trying again%n", base,
            e);
      }
    }
  }

  private static Window[] user(HttpClient client, URI base, Window[] windows, LongSupplier until,
      boolean checked, boolean bySent, CountDownLatch ready)
      throws IOException, InterruptedException {
    HttpResponse<String> opened;
    try {
      opened = open(client, base);
    } finally {
      ready.countDown();
    }
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
    long last = -1;
    while (true) {
      long sent = System.nanoTime();
      if (sent >= until.getAsLong()) {
        return windows;
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
      Window window = sentIn(windows, sent);
      if (checked && status == 200) {
        Matcher value = COUNTER.matcher(body);
        long now = value.find() ? Long.parseLong(value.group(1)) : -2;
        if (last >= 0 && now != last + 1) {
          window.breaks++;
        }
        last = now;
      }
      if (checked && status != 200) {
        window.errors++; // with a state check, every failure counts, warm-up included
      } else if (sent >= window.from() && (bySent || answered <= window.until.getAsLong())) {
        if (status == 200) {
          window.requests++;
          window.latency.recordValue(Math.max(1, (answered - sent) / 1000));
        } else {
          window.errors++;
        }
      }
    }
  }
}
