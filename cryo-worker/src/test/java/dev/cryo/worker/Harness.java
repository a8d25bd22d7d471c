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
    return Worker.builder(name, freezer).group("g").application(new ExampleApplication())
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

  /** Calls the example application. */
  static Object call(Worker worker, Call call) {
    return worker.call(call);
  }

  static Call increment(String user, String connection, String page, String scope) {
    return Call.userEvent(user, connection, page, "increment")
        .withArguments(Map.of("scope", scope, "key", "n"));
  }

  static Call get(String user, String connection, String page, String scope) {
    return Call.rpc(user, connection, page, "get").withArguments(Map.of("scope", scope, "key", "n"));
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
