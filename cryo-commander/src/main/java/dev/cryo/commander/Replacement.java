package dev.cryo.commander;

import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The replacement of workers, one at a time, without losing a user: for each old worker a new one
 * is started first (and must present itself), then the old one is quit into the freezer — placement
 * stops choosing it, its users are held (their requests wait and are not refused), each is frozen
 * once his call ends, and his held requests are served by whichever worker wakes him. A rolling
 * reload ({@link #reload}) replaces every running worker, with a new application path when one is
 * given; {@link #replace} replaces one (a worker whose heap stays too full); {@link #shrink}
 * closes one with no successor (a spare worker whose users fit on the others).
 *
 * <p>A new worker that does not start stops the reload there: the old worker runs on, as do those
 * after it, and the application path goes back to what it was. The commander keeps its port and
 * every open socket throughout: nothing here touches the front.
 *
 * <p>Events: {@code reload_begun} ({@code workers}, {@code app_path}), one {@code replaced}
 * ({@code old}, {@code new}, {@code frozen}, {@code lost}) per worker, {@code reload_ended}
 * ({@code refusal}, {@code message}).
 *
 * <p>Phases ({@link Lifecycle}): each begins only while the run serves, as the run's one change of
 * workers ({@link Lifecycle.Change#RELOAD}, {@code REPLACE} or {@code SHRINK}); otherwise it is
 * refused {@code BUSY} (another change runs) or {@code CLOSED}, nothing changed. A drain asked
 * meanwhile is waiting for it: a reload stops before its next worker ({@code DRAINING}), the worker
 * it is quitting ends its quit first (its users frozen, for the drain to carry), and the drain
 * follows.
 *
 * <p>Thread-safety: any thread may call; a call blocks its caller until it is done.
 */
final class Replacement {

  private static final System.Logger LOG = System.getLogger(Replacement.class.getName());

  private final CommanderConfig config;
  private final Routing routing;
  private final Supervisor supervisor;
  private final BiFunction<String, Duration, QuitOutcome> quit;
  private final Lifecycle lifecycle;
  private final dev.cryo.freezer.Freezer freezer;

  Replacement(CommanderConfig config, Routing routing, Supervisor supervisor,
      BiFunction<String, Duration, QuitOutcome> quit, Lifecycle lifecycle,
      dev.cryo.freezer.Freezer freezer) {
    this.lifecycle = lifecycle;
    this.freezer = freezer;
    this.config = config;
    this.routing = routing;
    this.supervisor = supervisor;
    this.quit = quit;
  }

  /**
   * Replaces every worker running now, one at a time.
   *
   * @param appPath the jar the new workers load the application from; null keeps the current one
   * @param grace how long an old worker waits for calls in flight before it cuts them
   */
  ReloadOutcome reload(Path appPath, Duration grace) {
    return reload(appPath, null, null, grace);
  }

  /**
   * Replaces every worker running now, one at a time, the new ones started with the
   * configuration file read again and, when given, other JVM options.
   *
   * @param appPath the jar the new workers load the application from; null keeps the current one
   * @param appConfig the configuration file from now on; null reads the current one again
   * @param jvmOptions the new workers' JVM options beyond cryo's own; null keeps the current ones
   * @param grace how long an old worker waits for calls in flight before it cuts them
   */
  ReloadOutcome reload(Path appPath, Path appConfig, List<String> jvmOptions, Duration grace) {
    if (appPath != null && (!Files.isRegularFile(appPath) || !Files.isReadable(appPath))) {
      return refused(ReloadOutcome.Refusal.BAD_APP_PATH, "the application path " + appPath
          + " is not a readable file; nothing was changed: give the jar of the new version");
    }
    Path configFile = appConfig != null ? appConfig.toAbsolutePath().normalize()
        : supervisor.appConfigPath();
    java.util.Map<String, String> contents = java.util.Map.of();
    if (configFile != null) {
      try {
        contents = AppConfigFile.read(configFile);
      } catch (IllegalArgumentException e) {
        return refused(ReloadOutcome.Refusal.BAD_APP_CONFIG, e.getMessage());
      }
    }
    List<String> old = new ArrayList<>();
    supervisor.workers().stream().filter(w -> w.state() == WorkerState.RUNNING)
        .sorted(Comparator.comparingLong(WorkerHandle::order))
        .forEach(w -> old.add(w.name()));
    return run(old, appPath == null ? null : appPath.toAbsolutePath().normalize(),
        new Settings(configFile, contents, jvmOptions), grace, "reload", Lifecycle.Change.RELOAD);
  }

  /** What a reload starts its new workers with beside the application path. */
  private record Settings(Path configFile, java.util.Map<String, String> config,
      List<String> jvmOptions) {}

  /** Replaces the one worker {@code name} (same application path), as a reload would. */
  ReloadOutcome replace(String name, Duration grace, String why) {
    return run(List.of(name), null, null, grace, why, Lifecycle.Change.REPLACE);
  }

  /**
   * Closes the one worker {@code name} with no successor (the group shrinks): placement stops
   * choosing it, and it is quit as in a reload — its users held, frozen once their calls end, and
   * woken on their next request wherever placement picks. Event {@code shrunk} ({@code worker},
   * {@code why}, {@code frozen}, {@code lost}, {@code message}).
   *
   * @return the quit's outcome, or empty when the run does not serve now (another change of
   *     workers runs, or a drain or a stop: nothing was changed)
   */
  Optional<QuitOutcome> shrink(String name, Duration grace, String why) {
    if (lifecycle.beginChange(Lifecycle.Change.SHRINK).isPresent()) {
      return Optional.empty();
    }
    try {
      supervisor.retiring(List.of(name), true);
      QuitOutcome outcome = quit.apply(name, grace);
      note("shrunk", "worker", name, "why", why, "frozen", outcome.frozen(), "lost",
          outcome.lost(), "message", outcome.message());
      return Optional.of(outcome);
    } finally {
      supervisor.retiring(List.of(name), false);
      lifecycle.endChange(Lifecycle.Change.SHRINK);
    }
  }

  private ReloadOutcome run(List<String> old, Path appPath, Settings settings, Duration grace,
      String why, Lifecycle.Change change) {
    Optional<String> refusal = lifecycle.beginChange(change);
    if (refusal.isPresent()) {
      Lifecycle.Phase phase = lifecycle.phase();
      return refused(phase == Lifecycle.Phase.RELOADING || phase == Lifecycle.Phase.SHRINKING
          ? ReloadOutcome.Refusal.BUSY : phase == Lifecycle.Phase.DRAINING
          || lifecycle.drainWaiting() ? ReloadOutcome.Refusal.DRAINING
          : ReloadOutcome.Refusal.CLOSED, refusal.get());
    }
    long started = System.nanoTime();
    Path before = supervisor.appPath();
    Path configBefore = supervisor.appConfigPath();
    java.util.Map<String, String> contentsBefore = supervisor.appConfig();
    List<String> optionsBefore = supervisor.jvmOptions();
    try {
      if (appPath != null) {
        supervisor.useAppPath(appPath);
      }
      if (settings != null) {
        supervisor.useAppConfig(settings.configFile(), settings.config());
        if (settings.jvmOptions() != null) {
          supervisor.useJvmOptions(settings.jvmOptions());
        }
      }
      Path now = supervisor.appPath();
      note("reload_begun", "why", why, "workers", old, "app_path", now == null ? null
          : now.toString());
      List<String> replaced = new ArrayList<>();
      TreeSet<String> lost = new TreeSet<>();
      int frozen = 0;
      try {
        for (String name : old) {
          if (lifecycle.drainWaiting()) {
            return ended(ReloadOutcome.Refusal.DRAINING, replaced, frozen, lost, started,
                "the run began to drain (or stopped): the reload stopped before " + name + "; "
                + name + " and the workers after it are drained with the others");
          }
          WorkerHandle next;
          try {
            next = start();
          } catch (RuntimeException | ExecutionException | TimeoutException e) {
            supervisor.useAppPath(before);
            supervisor.useAppConfig(configBefore, contentsBefore);
            supervisor.useJvmOptions(optionsBefore);
            String cause = e instanceof ExecutionException ? String.valueOf(e.getCause()) : e
                .toString();
            return ended(ReloadOutcome.Refusal.START_FAILED, replaced, frozen, lost, started,
                "the new worker meant to replace " + name + " did not start (" + cause + "); "
                + name + " and the workers after it run on as they were"
                + (appPath == null ? "" : ", with the application path " + before)
                + ": check the new version's jar and the workers' logs, then reload again");
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ended(ReloadOutcome.Refusal.CLOSED, replaced, frozen, lost, started,
                "the reload was interrupted before " + name + " was replaced");
          }
          if (change == Lifecycle.Change.RELOAD && replaced.isEmpty()) {
            String stranding = stranding(next, grace);
            if (stranding != null) {
              supervisor.useAppPath(before);
              return ended(ReloadOutcome.Refusal.UNREADABLE_STATE, replaced, frozen, lost,
                  started, stranding);
            }
          }
          // Once a new worker serves, nobody new is placed or woken on a worker that quits next.
          supervisor.retiring(old.subList(old.indexOf(name), old.size()), true);
          QuitOutcome outcome = quit.apply(name, grace);
          lost.addAll(outcome.lost());
          frozen += outcome.frozen();
          if (!outcome.quit()) {
            return ended(ReloadOutcome.Refusal.QUIT_FAILED, replaced, frozen, lost, started,
                "worker " + name + " was not quit (" + outcome.message() + "); the reload stopped"
                + " there, and new worker " + next.name() + " runs beside it");
          }
          replaced.add(name + " -> " + next.name());
          note("replaced", "old", name, "new", next.name(), "frozen", outcome.frozen(), "lost",
              outcome.lost());
        }
      } finally {
        supervisor.retiring(old, false); // the ones not replaced serve on as before
      }
      return ended(null, replaced, frozen, lost, started, "replaced " + replaced.size()
          + " workers (" + String.join(", ", replaced) + "); " + frozen + " users frozen and"
          + " woken on demand, " + lost.size() + " lost" + (lost.isEmpty() ? "" : ": " + lost));
    } finally {
      lifecycle.endChange(change);
    }
  }

  /**
   * Whether the new version, whose first worker {@code next} just presented itself, cannot read
   * what is stored ({@link StrandedState}): then {@code next} is quit again (a user placed on it
   * meanwhile is frozen by it, at its older state version, which the running version reads) and
   * the refusal's message is returned; else null. Nothing of the running workers is touched.
   */
  private String stranding(WorkerHandle next, Duration grace) {
    Integer version = next.presentation() == null ? null : next.presentation().stateVersion();
    if (version == null) {
      return null; // a worker that does not say: nothing to check against
    }
    java.util.Optional<StrandedState.Count> count = StrandedState.of(version,
        supervisor.workers(), routing, freezer);
    if (count.isEmpty()) {
      return null;
    }
    supervisor.retiring(List.of(next.name()), true);
    QuitOutcome undone;
    try {
      undone = quit.apply(next.name(), grace);
    } finally {
      supervisor.retiring(List.of(next.name()), false);
    }
    StrandedState.Count stranded = count.get();
    return "the new version's state version is " + version + ", and " + stranded.total()
        + " users (" + stranded.awake() + " awake, " + stranded.frozen() + " frozen) have state"
        + " written by state version " + stranded.newest() + ", which it cannot read: they"
        + " would be refused (unreadable_parcel) until a newer version runs again; nothing was"
        + " replaced (its trial worker " + next.name() + (undone.quit() ? " was quit"
        : " could not be quit: " + undone.message()) + ") and the workers run on with the"
        + " current version: reload a version whose state version is " + stranded.newest()
        + " or newer (its upgrade reads older state)";
  }

  /** Starts one worker and waits until it presented itself. */
  private WorkerHandle start() throws InterruptedException, ExecutionException, TimeoutException {
    long bound = config.presentation().plus(config.startBackoff().multipliedBy(2))
        .multipliedBy(config.startAttempts() + 1L).toMillis();
    return supervisor.startWorker().get(bound, TimeUnit.MILLISECONDS);
  }

  private ReloadOutcome ended(ReloadOutcome.Refusal refusal, List<String> replaced, int frozen,
      TreeSet<String> lost, long started, String message) {
    Path appPath = supervisor.appPath();
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    note("reload_ended", "refusal", refusal == null ? null : refusal.code(), "millis", millis,
        "message", message);
    LOG.log(refusal == null && lost.isEmpty() ? Level.INFO : Level.WARNING, message);
    return new ReloadOutcome(refusal, replaced, frozen, List.copyOf(lost),
        appPath == null ? null : appPath.toString(), millis, message);
  }

  private ReloadOutcome refused(ReloadOutcome.Refusal refusal, String message) {
    Path appPath = supervisor.appPath();
    return new ReloadOutcome(refusal, List.of(), 0, List.of(),
        appPath == null ? null : appPath.toString(), 0, message);
  }

  private void note(String event, Object... pairs) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      fields.put((String) pairs[i], pairs[i + 1]);
    }
    routing.note(event, fields);
  }
}
