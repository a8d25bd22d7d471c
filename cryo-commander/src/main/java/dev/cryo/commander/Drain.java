package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A drain: the run's last act when it stops without losing anyone. The caller has stopped admitting
 * (new requests get 503); this starts no worker any more, quits every running worker into the
 * freezer at once ({@link Quitter}: each user frozen once his call ends, stragglers cut after the
 * grace), writes the commander's item and renames the freezer root to the reboot data
 * ({@link RebootData#commit}). Users frozen before the drain are in the same root and in the item:
 * carried too. Progress (users left, per worker) is given to a callback about every second.
 *
 * <p>Before any worker quits, every awake user is ordered to freeze while his worker still runs
 * ({@link DrainFreezes}). When a worker answers that it could not write one of them (a full disk,
 * a refused write), the drain stops there: no worker is quit, nothing is committed or deleted,
 * those users stay alive and served on their workers, and the run serves on
 * ({@code drain_refused}, {@link DrainReport#refused()}); the users frozen meanwhile are in the
 * working freezer and wake on their next request. A new drain may be asked once space returned.
 *
 * <p>Events: {@code drain_begun}, then {@code drain_refused} (who stays and why), or the quits',
 * then {@code drain_committed} (carried, lost, the reboot data) or {@code drain_failed}. Runs
 * once, on its caller's thread; not thread-safe.
 *
 * <p>Fault injection, for the tests that kill a commander at each step of a drain: with the
 * system property {@value #PAUSE_PROPERTY} set to {@code begun} (nothing frozen yet),
 * {@code first-quit} (the workers quit one after another, and the drain pauses after the first),
 * {@code item} (the item written, not renamed) or {@code rename} (committed), the drain says
 * {@code "cryo: drain paused after STEP"} and waits for ever at that step. Never set in a real run.
 */
final class Drain {

  private static final System.Logger LOG = System.getLogger(Drain.class.getName());
  private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** The system property naming the step a drain pauses after (tests only). */
  static final String PAUSE_PROPERTY = "cryo.drain.pauseAfter";

  private final Path home;
  private final Routing routing;
  private final Supervisor supervisor;
  private final Quitter quitter;
  private final Freezer freezer;
  private final Clock clock;
  private final Runnable beforeCommit;
  private final java.util.function.BooleanSupplier stoppedNow;
  private final Duration orderTimeout;

  /**
   * A drain of the run in {@code home}.
   *
   * @param beforeCommit runs once every worker has ended, before the item is written (the journal
   *     flushes there)
   * @param stoppedNow whether the run was stopped at once meanwhile: nothing is committed then
   */
  Drain(Path home, Routing routing, Supervisor supervisor, Quitter quitter, Freezer freezer,
      Clock clock, Runnable beforeCommit, java.util.function.BooleanSupplier stoppedNow,
      Duration orderTimeout) {
    this.stoppedNow = stoppedNow;
    this.orderTimeout = orderTimeout;
    this.home = home;
    this.routing = routing;
    this.supervisor = supervisor;
    this.quitter = quitter;
    this.freezer = freezer;
    this.clock = clock;
    this.beforeCommit = beforeCommit;
  }

  /** Runs the drain; see the class description. Never throws for what the disk or workers do. */
  DrainReport run(Duration grace, Consumer<String> progress) throws InterruptedException {
    return run(grace, progress, () -> { });
  }

  /**
   * Runs the drain; see the class description. Never throws for what the disk or workers do.
   *
   * @param beforeQuits runs once every awake user was ordered to freeze and the drain goes on to
   *     quit its workers (not when it is refused)
   */
  DrainReport run(Duration grace, Consumer<String> progress, Runnable beforeQuits)
      throws InterruptedException {
    long begun = System.nanoTime();
    supervisor.holdStarts();
    List<String> names = new ArrayList<>();
    for (WorkerHandle handle : supervisor.workers()) {
      if (handle.isRunning()) {
        names.add(handle.name());
      }
    }
    Routing.Counts before = routing.counts();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("workers", List.copyOf(names));
    fields.put("placed", before.placed());
    fields.put("frozen", before.frozen());
    fields.put("grace_ms", grace.toMillis());
    routing.note("drain_begun", fields);
    progress.accept("cryo: draining " + DrainReport.users(before.placed()).replace(" user",
        " awake user") + " from " + names.size() + (names.size() == 1 ? " worker (" : " workers (")
        + before.frozen() + " frozen already; stragglers cut after " + grace
        .toMillis() / 1000.0 + " s)");
    pauseAfter("begun", progress);
    Map<String, String> staying = new DrainFreezes(routing, supervisor, orderTimeout)
        .run(names, grace);
    if (!staying.isEmpty()) {
      return refused(staying, before.placed(), begun);
    }
    beforeQuits.run();
    boolean oneByOne = "first-quit".equals(System.getProperty(PAUSE_PROPERTY));
    List<CompletableFuture<QuitOutcome>> quits = new ArrayList<>();
    for (String name : names) {
      if (oneByOne && !quits.isEmpty()) {
        quits.get(0).join();
        pauseAfter("first-quit", progress);
      }
      CompletableFuture<QuitOutcome> quit = new CompletableFuture<>();
      Thread.ofVirtual().name("cryo-drain-" + name).start(() -> {
        try {
          quit.complete(quitter.quit(name, grace));
        } catch (RuntimeException e) {
          quit.completeExceptionally(e);
        }
      });
      quits.add(quit);
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(quits.toArray(CompletableFuture[]::new));
    while (true) {
      try {
        all.get(PROGRESS_NANOS, TimeUnit.NANOSECONDS);
        break;
      } catch (TimeoutException e) {
        progress.accept(left(names));
      } catch (java.util.concurrent.ExecutionException e) {
        break; // each quit's own outcome is read below
      }
    }
    List<QuitOutcome> outcomes = new ArrayList<>();
    Map<String, String> notCarried = new TreeMap<>();
    for (int i = 0; i < quits.size(); i++) {
      String name = names.get(i);
      QuitOutcome outcome = quits.get(i).exceptionally(e -> new QuitOutcome(name, null, 0, 0, 0, 0,
          List.of(), "the quit of " + name + " failed: " + e)).join();
      outcomes.add(outcome);
      for (String user : outcome.lost()) {
        notCarried.put(user, "lost with worker " + name + ": his departure failed or the worker"
            + " died during its quit");
      }
    }
    beforeCommit.run();
    Routing.Snapshot maps = routing.snapshot();
    CommanderItem item = CommanderItem.of(maps, clock.instant(), "drain");
    maps.users().forEach((user, location) -> {
      if (!(location instanceof Location.Frozen)) {
        notCarried.put(user, "awake on " + (location instanceof Location.OnWorker on ? "worker "
            + on.worker() : "no worker") + " when the item was written: never frozen");
      }
    });
    Path reboot = null;
    String failure = null;
    try {
      if (stoppedNow.getAsBoolean()) {
        throw new IllegalStateException("the run was stopped at once during the drain; nothing was"
            + " committed and the next start wipes the freezer");
      }
      reboot = RebootData.commit(home, freezer, item, () -> pauseAfter("item", progress));
      pauseAfter("rename", progress);
    } catch (FreezerException | RuntimeException e) {
      failure = e.getMessage();
      LOG.log(Level.ERROR, "the drain could not commit its reboot data: " + failure);
    }
    DrainReport report = new DrainReport(item.frozen(), notCarried, outcomes, reboot, failure,
        Duration.ofNanos(System.nanoTime() - begun));
    Map<String, Object> end = new LinkedHashMap<>();
    end.put("carried", report.carried());
    end.put("lost", report.lost());
    end.put("carried_users", report.carriedUsers());
    end.put("not_carried", report.notCarried());
    end.put("reboot", reboot == null ? null : reboot.toString());
    end.put("failure", failure);
    end.put("took_ms", report.took().toMillis());
    routing.note(report.committed() ? "drain_committed" : "drain_failed", end);
    return report;
  }

  /**
   * The end of a drain that could not write every user: nothing is quit, committed or deleted;
   * the users it could not write stay alive on their workers, and the run serves on
   * ({@link Commander#drain} hands it back). Event {@code drain_refused}.
   */
  private DrainReport refused(Map<String, String> staying, int placedBefore, long begun) {
    Routing.Counts now = routing.counts();
    DrainReport report = new DrainReport(List.of(), Map.of(), List.of(), null,
        "the freezer refused " + DrainReport.users(staying.size()) + " (" + String.join(", ",
            staying.keySet()) + ")", Duration.ofNanos(System.nanoTime() - begun), staying);
    Map<String, Object> end = new LinkedHashMap<>();
    end.put("staying", staying);
    end.put("frozen_meanwhile", Math.max(0, placedBefore - now.placed()));
    end.put("awake", now.placed());
    end.put("frozen", now.frozen());
    end.put("what_to_do", DrainReport.WHAT_TO_DO);
    end.put("took_ms", report.took().toMillis());
    routing.note("drain_refused", end); // the caller prints the summary
    return report;
  }

  private void pauseAfter(String step, Consumer<String> progress) {
    if (!step.equals(System.getProperty(PAUSE_PROPERTY))) {
      return;
    }
    beforeCommit.run(); // the journal on disk, so that what the test kills is what it expects
    progress.accept("cryo: drain paused after " + step + " (" + PAUSE_PROPERTY + ")");
    while (true) {
      try {
        Thread.sleep(Long.MAX_VALUE); // a fault injection: the test kills this process here
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private String left(List<String> names) {
    StringJoiner perWorker = new StringJoiner(", ");
    int total = 0;
    for (String name : names) {
      int users = routing.usersOn(name).size();
      total += users;
      perWorker.add(name + ": " + users);
    }
    return "cryo: draining: " + DrainReport.users(total) + " left to freeze (" + perWorker + ")";
  }
}
