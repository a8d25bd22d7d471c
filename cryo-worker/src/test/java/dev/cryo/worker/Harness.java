package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.Freezer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Workers on a real freezer in a temporary folder, a manual schedule, and recorded announcements. */
final class Harness implements AutoCloseable {

  final ManualSchedule schedule = new ManualSchedule();
  final ExecutorService disk = Executors.newFixedThreadPool(2);
  final CountingCodec codec = new CountingCodec();
  final Freezer freezer;
  final List<Worker> workers = new ArrayList<>();
  final Map<String, List<Announcement>> heard = new java.util.concurrent.ConcurrentHashMap<>();
  /** What the workers' locator answers, by identity; absent means nowhere. */
  final Map<String, IdentityLocator.Location> whereabouts =
      new java.util.concurrent.ConcurrentHashMap<>();

  Harness(Path root) throws Exception {
    this.freezer = new Freezer(root.resolve("freezer"), codec);
  }

  Worker.Builder builder(String name) {
    List<Announcement> log = heard.computeIfAbsent(name, key -> new CopyOnWriteArrayList<>());
    return Worker.builder(name, freezer).group("g").application(new AppHost(new StoreApplication()))
        .listener(log::add)
        .identityLocator(user -> whereabouts.getOrDefault(user, IdentityLocator.Location.NOWHERE))
        .schedule(schedule).diskExecutor(disk)
        .semaphoreRetryInterval(Duration.ofMillis(50)).semaphoreWaitLimit(Duration.ofSeconds(1))
        .transferStartDelay(Duration.ofSeconds(2)).pendingCallGrace(Duration.ofSeconds(5));
  }

  Worker worker(String name) {
    Worker worker = builder(name).build();
    workers.add(worker);
    return worker;
  }

  /** A worker serving {@code application} (a cryo-app application, loaded as a worker loads it). */
  Worker worker(String name, Class<? extends dev.cryo.app.CryoApplication> application) {
    Worker worker = builder(name).application(AppHost.load(application.getName(), null)).build();
    workers.add(worker);
    return worker;
  }

  List<Announcement> heard(String worker) {
    return heard.get(worker);
  }

  /** Kinds and keys, as "kind:key,key". */
  List<String> told(String worker) {
    List<String> out = new ArrayList<>();
    for (Announcement announcement : heard.get(worker)) {
      out.add(announcement.kind().code() + ":" + String.join(",", announcement.keys()));
    }
    return out;
  }

  /** Polls {@code condition}, running due scheduled work between polls, for at most 10 s. */
  void await(String what, BooleanSupplier condition) {
    // Generous: a loaded machine (disk trips, other builds); a passing run never waits this long.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      schedule.runDue();
      if (condition.getAsBoolean()) {
        return;
      }
      assertThat(System.nanoTime() < deadline).as("still waiting for: " + what).isTrue();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  /** Moves time one retry interval at a time, each once a retry is scheduled, until done. */
  void driveRetries(java.util.concurrent.CompletableFuture<?> operation) {
    for (int step = 0; step < 400 && !operation.isDone(); step++) {
      await("a retry scheduled, or the end",
          () -> operation.isDone() || schedule.dueWithin(Duration.ofMillis(50)));
      schedule.advance(Duration.ofMillis(50));
    }
    await("the end", operation::isDone);
  }

  /**
   * Serves {@code call} on {@code worker} through its {@link AppHost} (a ping: {@link Worker#ping})
   * and answers the value the application answered (whole numbers as longs).
   *
   * @throws Refused when the application answered another status than 200
   * @throws WorkerException when the worker refused the call
   */
  static Object call(Worker worker, TestCall call) {
    Arrival arrival = call.arrival();
    if (arrival.clocks() == Arrival.Clocks.REFRESH) {
      if (arrival.pageId() == null) {
        worker.pingConnection(arrival.connectionId());
      } else {
        worker.ping(arrival.pageId());
      }
      return null;
    }
    StringBuilder query = new StringBuilder();
    byte[] body = new byte[0];
    Map<String, Object> arguments = new java.util.HashMap<>(call.arguments());
    if (arrival.pageId() != null && !arguments.containsKey("page")) {
      arguments.put("page", arrival.pageId());
    }
    for (Map.Entry<String, Object> argument : arguments.entrySet()) {
      if (argument.getKey().equals("value")) {
        body = json(Map.of("value", argument.getValue()));
        continue;
      }
      query.append(query.isEmpty() ? "" : "&").append(argument.getKey()).append('=')
          .append(java.net.URLEncoder.encode(String.valueOf(argument.getValue()),
              java.nio.charset.StandardCharsets.UTF_8));
    }
    dev.cryo.app.Request request = dev.cryo.app.Request.of("POST", "/" + call.operation(),
        query.toString(), List.of(), body);
    dev.cryo.app.Response response = worker.application().serve(worker, arrival, request, null,
        false);
    if (response.status() != 200) {
      throw new Refused(response.status(), new String(response.body(),
          java.nio.charset.StandardCharsets.UTF_8));
    }
    return longs(read(response.body()).get("value"));
  }

  /** Runs {@code action} inside a call of {@code call}'s arrival, outside the application. */
  static <T> T inCall(Worker worker, TestCall call,
      java.util.function.Function<AppHost.Host, T> action) {
    return worker.application().inCall(worker, call.arrival(), action);
  }

  static TestCall increment(String user, String connection, String page, String scope) {
    return TestCall.userEvent(user, connection, page, "increment")
        .withArguments(Map.of("scope", scope, "key", "n"));
  }

  static TestCall get(String user, String connection, String page, String scope) {
    return TestCall.rpc(user, connection, page, "get")
        .withArguments(Map.of("scope", scope, "key", "n"));
  }

  /** An answer of the application's that is not a 200: its status and body. */
  static final class Refused extends RuntimeException {
    final int status;

    Refused(int status, String body) {
      super(status + " " + body);
      this.status = status;
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private static byte[] json(Object value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Map<?, ?> read(byte[] body) {
    try {
      return JSON.readValue(body, Map.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Object longs(Object value) {
    return value instanceof Integer number ? (Object) number.longValue() : value;
  }

  /** A number read from a store, as a long (the codec reads small integers back as Integer). */
  static long number(Object value) {
    return ((Number) value).longValue();
  }

  @Override
  public void close() {
    for (Worker worker : workers) {
      worker.close();
    }
    disk.shutdown(); // never interrupt a release half-way
    try {
      disk.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
