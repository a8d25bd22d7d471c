package dev.cryo.bench.serve;

import dev.cryo.bench.LoadAverage;
import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.ReloadOutcome;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import dev.cryo.commander.RunListener;
import dev.cryo.commander.Status;
import dev.cryo.commander.WorkerState;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rolling reload of 2 workers holding {@code USERS} users, under a steady load over HTTP: the
 * request latency during the reload beside the same load's just before it (the anchor: the same
 * server, the same virtual users, not reloading), the longest wait of a request held while its user
 * moved, the requests failed and the state breaks (both must be zero), and the reload's duration
 * with its steps.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.ReloadBench [USERS] [ACTIVE] [SECONDS] [HOLD]
 * </pre>
 *
 * Defaults: 5,000 users, 20 virtual users, a window of 10 s before the reload, a hold of 120 s
 * ({@code HOLD} in seconds: the commander's default is 5 s, past which a held request fails).
 *
 * <p>The run: two versions of one small application ({@link AppVersions}: version two's state
 * class lost a field and gained one) are compiled and jarred; a commander with 2 workers runs
 * version one, at most {@code USERS / 2} users per worker, behind the front. {@code USERS - ACTIVE}
 * users are made through the commander (no HTTP: the making is not what is measured), each with a
 * page and one counted request, all on the reception; the first {@code USERS / 2} of them are moved
 * to the second worker and woken there, so each worker holds {@code USERS / 2} once the
 * {@code ACTIVE} virtual users of {@link LoadGenerator} (guests of the reception, over HTTP, each
 * checking his own counter) have come. After a warm-up, the load is measured for {@code SECONDS},
 * then during {@link Commander#reload} to version two (each worker replaced in turn: a new one
 * started, the old one quit into the freezer with its users' requests held). The held waits are
 * the commander's own ({@link RunListener#heldWait}); the steps' times are from its events.
 */
public final class ReloadBench {

  private static final Pattern PAGE = Pattern.compile("\"page\"\\s*:\\s*\"([^\"]+)\"");
  private static final Pattern USER = Pattern.compile("\"user\"\\s*:\\s*\"([^\"]+)\"");
  private static final int MAKERS = 8;
  /** The reload's steps, as the commander's events name them. */
  private static final Set<String> STEPS = Set.of("reload_begun", "worker_spawned",
      "worker_presented", "quit_begun", "quit_ended", "worker_died", "replaced", "reload_ended");

  /**
   * What one run measured.
   *
   * @param users the users the two workers held before the reload
   * @param placed each worker's users before the reload ({@code NAME N users, heap …})
   * @param madeSeconds how long the making and the spreading of the users took
   * @param load the load before the reload and during it
   * @param reload what the reload did
   * @param held the requests that waited for a hold during the reload
   * @param steps the reload's steps, each {@code +MILLIS event worker}
   */
  public record Figures(int users, List<String> placed, double madeSeconds,
      LoadGenerator.Windows load, ReloadOutcome reload, HeldWaits held, List<String> steps) {}

  private ReloadBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int active = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Duration before = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 10);
    Duration hold = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 120);
    run(users, active, before, hold, System.out);
  }

  /** One run with a hold of 120 s (a held request never fails for its wait); see the other. */
  public static Figures run(int users, int active, Duration before, PrintStream out)
      throws Exception {
    return run(users, active, before, Duration.ofSeconds(120), out);
  }

  /**
   * One run (see the class documentation), its figures printed to {@code out} as it goes.
   *
   * @param users the users of both workers, at least 2 and more than {@code active}
   * @param active the virtual users of the load
   * @param before the window measured before the reload
   * @param hold the commander's hold: how long a request may wait in all before its 503
   */
  public static Figures run(int users, int active, Duration before, Duration hold,
      PrintStream out) throws Exception {
    if (users < 2 || active < 1 || active >= users) {
      throw new IllegalArgumentException("need 2 <= USERS, 1 <= ACTIVE < USERS; got " + users
          + " users, " + active + " active");
    }
    out.printf("reload of 2 workers holding %,d users (at most %,d each) under %d virtual users,"
        + " hold %d s; load average %s%n", users, cap(users), active, hold.toSeconds(),
        LoadAverage.now());
    Path scratch = Files.createTempDirectory("cryo-reload-bench");
    try {
      Path one = AppVersions.jar(scratch, "one", AppVersions.ONE);
      Path two = AppVersions.jar(scratch, "two", AppVersions.TWO);
      CommanderConfig config = CommanderConfig.builder(Files.createDirectories(scratch.resolve(
          "home")), AppVersions.APP).appPath(one).workers(2).maxWorkers(4)
          .maxUsersPerWorker(cap(users))
          .presentation(Duration.ofSeconds(60)) // a loaded machine starts a JVM slowly
          .hold(hold)
          .build();
      try (Commander commander = Commander.start(config);
          Front front = Front.builder(Upstream.of(commander)).port(0).build()) {
        front.start();
        awaitRunning(commander, 2);
        long making = System.nanoTime();
        make(commander, users - active);
        double madeSeconds = (System.nanoTime() - making) / 1e9;
        out.printf("%,d users made through the commander in %.1f s (the reception takes up to"
            + " %,d, the cap for new users, the rest go to the second worker)%n", users - active,
            madeSeconds, cap(users));

        HeldWaits held = new HeldWaits();
        List<String> steps = new CopyOnWriteArrayList<>();
        AtomicLong reloadFrom = new AtomicLong(Long.MAX_VALUE);
        commander.addListener(new RunListener() {
          @Override
          public void heldWait(String user, boolean released, long nanos) {
            if (System.nanoTime() >= reloadFrom.get()) {
              held.add(released, nanos);
            }
          }

          @Override
          public void event(String event, Map<String, Object> fields) {
            long from = reloadFrom.get();
            if (STEPS.contains(event) && System.nanoTime() >= from) {
              Object worker = fields.getOrDefault("worker", fields.getOrDefault("old", ""));
              steps.add(String.format("+%,d ms %s %s", (System.nanoTime() - from) / 1_000_000,
                  event, worker));
            }
          }
        });
        URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
        List<String> placed = new ArrayList<>();
        ReloadOutcome[] reload = new ReloadOutcome[1];
        LoadGenerator.Windows load = LoadGenerator.runBeforeAndDuring(base, active,
            Duration.ofSeconds(2), before, () -> {
              placed.addAll(placed(commander.status()));
              reloadFrom.set(System.nanoTime());
              reload[0] = commander.reload(two);
              return null;
            });
        Figures figures = new Figures(users, placed, madeSeconds, load, reload[0], held, steps);
        print(figures, out);
        return figures;
      }
    } finally {
      Scratch.delete(scratch);
    }
  }

  /** The figures, one line each. */
  static void print(Figures figures, PrintStream out) {
    out.println("before the reload: " + placed(figures.placed()));
    LoadGenerator.Result still = figures.load().before();
    LoadGenerator.Result during = figures.load().during();
    out.println("before the reload (" + window(still));
    out.println("during the reload (" + window(during));
    out.printf("during / before: p50 x%.2f, p99 x%.2f%n", ratio(during.micros(50),
        still.micros(50)), ratio(during.micros(99), still.micros(99)));
    long failed = still.errors() + during.errors();
    long breaks = still.stateBreaks() + during.stateBreaks();
    out.println(failed == 0 && breaks == 0 ? "no request failed, no state broke"
        : "NOT ZERO: " + failed + " requests failed, " + breaks + " state breaks");
    ReloadOutcome reload = figures.reload();
    out.printf("reload: %,d ms, %s%n", reload.millis(), reload.message());
    HeldWaits held = figures.held();
    out.printf("held requests during the reload: %,d waited for their user's hold, the longest"
        + " %,d ms (%,d not released within the budget)%n", held.count(),
        held.longestNanos() / 1_000_000, held.notReleased());
    figures.steps().forEach(step -> out.println("  " + step));
  }

  private static String window(LoadGenerator.Result result) {
    return String.format("%.1f s): %,d requests, %,.0f req/s, p50 %,d us, p99 %,d us, max %,d us,"
        + " %d failed, %d state breaks", result.seconds(), result.requests(), result.throughput(),
        result.micros(50), result.micros(99), result.latency().getMaxValue(), result.errors(),
        result.stateBreaks());
  }

  private static double ratio(long value, long anchor) {
    return anchor == 0 ? Double.NaN : (double) value / anchor;
  }

  private static String placed(List<String> placed) {
    return String.join(", ", placed);
  }

  private static List<String> placed(Status status) {
    return status.workers().stream().filter(w -> w.state() == WorkerState.RUNNING)
        .map(w -> w.name() + " " + w.users() + " users, heap " + w.heapUsedBytes() / (1 << 20)
            + " of " + w.heapMaxBytes() / (1 << 20) + " MiB").toList();
  }

  /**
   * The cap for new users: half the users and a tenth more, so that the births a burst has in
   * flight never find both workers full and grow a third.
   */
  static int cap(int users) {
    return users / 2 + Math.max(1, users / 10);
  }

  /**
   * Makes {@code count} users, {@link #MAKERS} at a time, each with a page and one counted
   * request: the reception takes them up to {@code --max-users-per-worker}, the other worker the
   * rest.
   */
  private static void make(Commander commander, int count) throws Exception {
    try (ExecutorService pool = Executors.newFixedThreadPool(MAKERS)) {
      List<Future<String[]>> made = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String connection = "bench" + i;
        made.add(pool.submit(() -> user(commander, connection)));
      }
      for (Future<String[]> user : made) {
        user.get();
      }
    }
  }

  /** A new user on {@code connection}: a page, one counted request; {connection, page, user}. */
  private static String[] user(Commander commander, String connection) {
    Matcher page = PAGE.matcher(text(check(post(commander, connection, "/api/pages", "{}"))));
    if (!page.find()) {
      throw new IllegalStateException("no page in the reply");
    }
    String[] tab = {connection, page.group(1), null};
    Matcher user = USER.matcher(text(check(count(commander, tab))));
    if (!user.find()) {
      throw new IllegalStateException("no user in the reply");
    }
    tab[2] = user.group(1);
    return tab;
  }

  private static Reply count(Commander commander, String[] tab) {
    return post(commander, tab[0], "/api/counter", "{\"page\":\"" + tab[1] + "\"}");
  }

  private static Reply post(Commander commander, String connection, String path, String body) {
    return commander.serve(new Request(connection, "POST", path, "", List.of(Map.entry(
        "Content-Type", "application/json")), body.getBytes(StandardCharsets.UTF_8)));
  }

  private static Reply check(Reply reply) {
    if (reply.status() != 200) {
      throw new IllegalStateException("answered " + reply.status() + ": " + reply.bodyText());
    }
    return reply;
  }

  private static String text(Reply reply) {
    return new String(reply.body(), StandardCharsets.UTF_8);
  }

  private static void awaitRunning(Commander commander, int workers) throws InterruptedException {
    long bound = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (commander.status().workers().stream().filter(w -> w.state() == WorkerState.RUNNING)
        .count() < workers) {
      if (System.nanoTime() > bound) {
        throw new IllegalStateException("the workers did not start within 3 minutes: "
            + commander.status().workers());
      }
      Thread.sleep(50); // a poll of the status, bounded above
    }
  }

  /** The requests that waited for a hold: how many, the longest wait, those not released. */
  public static final class HeldWaits {
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong notReleased = new AtomicLong();
    private final LongAccumulator longest = new LongAccumulator(Math::max, 0);

    /** Counts one wait; thread-safe. */
    void add(boolean released, long nanos) {
      count.incrementAndGet();
      if (!released) {
        notReleased.incrementAndGet();
      }
      longest.accumulate(nanos);
    }

    /** How many requests waited. */
    public long count() {
      return count.get();
    }

    /** How many were still held when their budget ran out (answered 503). */
    public long notReleased() {
      return notReleased.get();
    }

    /** The longest wait, in nanoseconds (0 when none waited). */
    public long longestNanos() {
      return longest.get();
    }
  }
}
