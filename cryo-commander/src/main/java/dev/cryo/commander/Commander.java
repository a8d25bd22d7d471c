package dev.cryo.commander;

import dev.cryo.commander.CommanderException.Reason;
import dev.cryo.control.ControlException;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunHome;
import dev.cryo.control.RunState;
import dev.cryo.control.StopMode;
import dev.cryo.control.StopRequest;
import dev.cryo.control.StopWatcher;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerUsage;
import dev.cryo.freezer.FreezerWriters;
import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockException;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of cryo: holds the home's run lock, writes {@code run.json}, keeps the routing maps,
 * starts and supervises the worker JVMs, places and moves users, and serves HTTP requests handed to
 * it by the front. No HTTP in it.
 *
 * <p>The run directory ({@link CommanderConfig#home()}) holds: {@code .lock} (the run lock),
 * {@code run.json}, {@code status.json} ({@link Status}, rewritten atomically each tick),
 * {@code events.jsonl} and its rotated parts (the event log, see the package description and
 * {@link EventLogFiles}), {@code journal} (its maps,
 * for a start after a crash), {@code freezer/} (the working freezer: at start, the reboot data
 * {@code reboot/} of a drain renamed back, or the journal's frozen users kept, or wiped),
 * {@code generations} (the lease of the run's generations, {@link Generations}),
 * {@code writers.lock} (held shared by every worker for its life: a start waits for it,
 * {@link FreezerWriters}), {@code workers/NAME.log} (each worker's output; {@code NAME.log.1}
 * what its last cut took; their caps are {@link WorkerLogs}') and
 * {@code sockets/} (the wires; a private 0700 directory under the temporary directory instead when
 * the home's path is too long for a socket address), and, between two calls of {@code cryo
 * reload}, {@code reload.json} and {@code reload-result.json} ({@link ReloadRequests}).
 *
 * <p>The home is the run's own ({@link RunHome}): claimed before the lock is taken, created 0700
 * when missing, refused ({@link CommanderException.Reason#HOME_REFUSED}) when it or an entry of
 * {@link #HOME_LAYOUT} is another user's, writable by others, or a link or special file where the
 * run keeps a file or directory; held by its descriptor for the whole run. Every file the commander
 * creates there is 0600 and every directory 0700.
 *
 * <p>Its tick also runs the occupancy check ({@code OccupancyCheck}, policy
 * {@link CommanderConfig#occupancy()}): a worker whose heap stays above 95 % of its ceiling is
 * replaced, and a spare worker whose users fit on the others is closed (docs/operations.md).
 *
 * <p>Threads: {@link #serve}, {@link #move}, {@link #quitWorker}, {@link #status} and
 * {@link #knowsConnection} may be called from any number of threads at once; a tick runs on a
 * platform daemon thread of its own, and the workers' heartbeat on another ({@code Supervisor}),
 * so that the tick's walk of the freezer never delays a silence check.
 * {@link #close} may be called from any thread, once or more.
 */
public final class Commander implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Commander.class.getName());
  /** A socket path longer than this many bytes is put in a private directory instead. */
  private static final int SOCKET_PATH_BUDGET = 100;
  /** The directory of the workers' logs in the home. */
  static final String WORKER_LOGS = "workers";
  /** The directory of the workers' sockets in the home. */
  static final String SOCKETS = "sockets";
  /** The lease of the run's generations in the home ({@link Generations}). */
  static final String GENERATIONS = "generations";
  /** The working freezer in the home. */
  static final String FREEZER = "freezer";
  /** The file the run's workers hold shared while they may write the freezer ({@link FreezerWriters}). */
  static final String WRITERS = "writers.lock";
  /**
   * How long a start waits for the workers of a run before it (a commander killed) to finish
   * writing their users into the freezer: their own bound ({@code WorkerMain}'s, 10 s) and a
   * margin for their exit.
   */
  static final Duration WRITERS_WAIT = Duration.ofSeconds(15);

  /**
   * Every name of the home the run reads, writes or creates, and what it keeps there: what
   * {@link RunHome#claim} judges at the start, before anything is read.
   */
  public static final List<RunHome.Expected> HOME_LAYOUT = List.of(
      RunHome.Expected.file(ProcessLock.FILE_NAME),
      RunHome.Expected.file(RunState.FILE_NAME),
      RunHome.Expected.file(StopRequest.FILE_NAME),
      RunHome.Expected.file(Status.FILE_NAME),
      RunHome.Expected.file(ReloadRequests.REQUEST),
      RunHome.Expected.file(ReloadRequests.RESULT),
      RunHome.Expected.file(Journal.FILE_NAME),
      RunHome.Expected.file(Journal.NEW_FILE_NAME),
      RunHome.Expected.file(GENERATIONS),
      RunHome.Expected.file(WRITERS),
      RunHome.Expected.file(EventLog.FILE_NAME),
      RunHome.Expected.file(EventLog.PREVIOUS_FILE_NAME),
      RunHome.Expected.directory(FREEZER),
      RunHome.Expected.directory(RebootData.DIRECTORY),
      RunHome.Expected.directoryOfFiles(WORKER_LOGS),
      RunHome.Expected.directoryOfSockets(SOCKETS));

  private final CommanderConfig config;
  private final Path home;
  private final RunHome runHome;
  private final ProcessLock lock;
  private final RunDirectory runDirectory;
  private final RunState runState;
  private final EventLog events;
  private final Listeners listeners;
  private final Routing routing;
  private final Supervisor supervisor;
  private final Placement placement;
  private final Mover mover;
  private final Dispatcher dispatcher;
  private final Quitter quitter;
  private final StaticFiles staticFiles;
  private final PushRelay pushRelay;
  private final Freezer freezer;
  private final Path privateSockets;
  private final ScheduledExecutorService ticker;
  private final Expiry expiry;
  private final Replacement replacement;
  private final OccupancyCheck occupancyCheck;
  private final ReloadRequests reloadRequests;
  private final Sweep sweep;
  /** Expiry and sweep, off the tick's thread (a round reads many headers). */
  private final ScheduledExecutorService housekeeper;
  private final StopWatcher stopWatcher;
  private final Path freezerRoot;
  private volatile FreezerUsage freezerUsage = FreezerUsage.UNKNOWN;
  private final Lifecycle lifecycle = new Lifecycle();
  private volatile boolean stopRequested;
  private volatile Adoption.Found found; // set once by start, before the journal
  private volatile String startLine;
  private volatile Journal journal; // set once by start, before any worker
  private String lastStopRefusal; // the tick's thread only: a refusal is logged once

  private Commander(CommanderConfig config, RunHome runHome, ProcessLock lock,
      RunDirectory runDirectory, RunState runState, EventLog events, Freezer freezer, Path sockets,
      Path privateSockets, StopWatcher stopWatcher) {
    this.config = config;
    this.home = runHome.path();
    this.runHome = runHome;
    this.lock = lock;
    this.runDirectory = runDirectory;
    this.runState = runState;
    this.events = events;
    this.privateSockets = privateSockets;
    this.stopWatcher = stopWatcher;
    this.freezer = freezer;
    this.listeners = new Listeners(events);
    this.routing = new Routing(listeners);
    this.freezerRoot = freezer.root();
    this.supervisor = new Supervisor(config, routing, freezer, sockets, runHome, WORKER_LOGS);
    routing.repairOrders(this::dropCopy);
    this.pushRelay = new PushRelay(routing);
    routing.tellClosedPages(pushRelay::pageClosed); // the front closes the page's sockets
    supervisor.pushRelay(pushRelay);
    this.placement = new Placement(config.maxUsersPerWorker(), config.maxWorkers(),
        config.workerHeapBytes(), config.memoryAvailable());
    Object placementLock = new Object();
    this.mover = new Mover(config, routing, supervisor, placement, placementLock,
        () -> !lifecycle.stopped());
    this.dispatcher = new Dispatcher(config, routing, supervisor, placement, mover, placementLock,
        this::admits, listeners, pushRelay::anyBound);
    this.quitter = new Quitter(routing, supervisor);
    this.staticFiles = new StaticFiles(supervisor, config);
    this.ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-commander-tick");
      thread.setDaemon(true);
      return thread;
    });
    this.expiry = new Expiry(routing, freezer, config.housekeeping(), config.clock());
    this.replacement = new Replacement(config, routing, supervisor, quitter::quit, lifecycle,
        freezer);
    this.occupancyCheck = new OccupancyCheck(config, routing, supervisor, placement, replacement,
        RELOAD_GRACE, this::admits);
    this.reloadRequests = new ReloadRequests(runHome, runState.invocationId(),
        request -> reload(request.appPath() == null ? null : Path.of(request.appPath()),
            request.appConfig() == null ? null : Path.of(request.appConfig()),
            request.workerJvmOptions()),
        () -> lifecycle.wouldRefuse(Lifecycle.Change.RELOAD));
    this.sweep = new Sweep(routing, freezer);
    this.housekeeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-commander-housekeeping");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Claims the home of {@code config.home()} ({@link RunHome}: created 0700 if missing, judged with
   * every entry of {@link #HOME_LAYOUT}), takes its run lock, writes {@code run.json}, adopts or
   * wipes the working freezer, starts {@code config.workers()} worker processes, and returns once
   * the first of them presented itself: the reception.
   *
   * @throws CommanderException {@code HOME_REFUSED} when the home or an entry of it breaks the
   *     home's rule (another user's, writable by others, a link or special file: the message names
   *     it; nothing was read, changed or deleted); {@code HOME_HELD} when another run holds the
   *     home (its message and {@link CommanderException#holder()} name the holder; nothing was
   *     changed);
   *     {@code HOME_UNUSABLE} when the home cannot be used; {@code WORKER_START_FAILED} when no
   *     worker could be started (everything was stopped and the lock released)
   */
  public static Commander start(CommanderConfig config) {
    Path home = config.home().toAbsolutePath().normalize();
    if (config.appConfig() != null) { // read before anything is claimed: a bad file starts nothing
      try {
        AppConfigFile.read(config.appConfig());
      } catch (IllegalArgumentException e) {
        throw new CommanderException(Reason.BAD_APP_CONFIG, e.getMessage(), e);
      }
    }
    RunHome runHome;
    try {
      runHome = RunHome.claim(home, HOME_LAYOUT);
    } catch (ControlException e) {
      throw refusedOrUnusable(e);
    } catch (IOException e) {
      throw new CommanderException(Reason.HOME_UNUSABLE, "the home " + home + " cannot be"
          + " created (" + e + "); nothing was started: name a directory you may write", e);
    }
    runHome.tightenedLine().ifPresent(line -> LOG.log(Level.INFO, line));
    ProcessLock lock;
    try {
      lock = acquireRunLock(home);
    } catch (LockBusyException e) {
      closeQuietly(runHome);
      throw new CommanderException(Reason.HOME_HELD, "another cryo run holds " + home + ": "
          + e.getMessage() + ". Nothing was started: stop that run (cryo stop --home " + home
          + ") or choose another --home", e, e.holder().orElse(null));
    } catch (LockException e) {
      closeQuietly(runHome);
      throw new CommanderException(Reason.HOME_UNUSABLE, "the run lock of " + home + " cannot be"
          + " taken: " + e.getMessage() + "; nothing was started", e);
    }
    Commander commander = null;
    try {
      RunDirectory runDirectory = RunDirectory.at(home);
      RunState state = RunState.begin();
      runDirectory.writeRunState(state);
      StopWatcher watcher = runDirectory.watch(state.invocationId(), runHome);
      Freezer freezer = new Freezer(runHome.directory(FREEZER));
      awaitWriters(runHome, home);
      Adoption.Found taken = Adoption.at(runHome, freezer, config.clock().instant()); // reads only
      Path sockets = runHome.shown(SOCKETS);
      Path privateSockets = null;
      if (sockets.resolve(String.format("%s_%04d.sock", Supervisor.GROUP, 9999)).toString()
          .getBytes(StandardCharsets.UTF_8).length > SOCKET_PATH_BUDGET) {
        privateSockets = Files.createTempDirectory("cryo-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        sockets = privateSockets;
      } else {
        runHome.directory(SOCKETS); // 0700, before any worker's socket is bound in it
      }
      EventLog events = EventLog.open(runHome, config.clock(), config.logCaps());
      commander = new Commander(config, runHome, lock, runDirectory, state, events, freezer,
          sockets, privateSockets, watcher);
      commander.found = taken;
      if (taken.line() != null) {
        LOG.log(taken.item().isPresent() ? Level.INFO : Level.WARNING, taken.line());
        commander.startLine = taken.line();
      }
      Generations generations = Generations.open(runHome, GENERATIONS);
      commander.routing.generations(generations);
      if (taken.item().isPresent()) {
        commander.routing.adopt(taken.item().get(), taken.lost(), taken.restored());
      }
      // Write-ahead: the new journal durably holds every carried user before what held him is
      // consumed; a failure from here on hands it back ({@link #abandonStart}).
      commander.journal = Journal.start(runHome, commander.routing, freezer::forceUsers,
          generations.first());
      taken.consume(runHome, freezer);
      if (taken.item().isPresent() && taken.source() != Adoption.Source.JOURNAL) {
        // a login's hand-over after a drain took the maps (a killed run's item already has it)
        commander.routing.adoptHandedOver(Adoption.handedOver(taken.item().get().frozen(),
            freezer));
      }
      commander.startWorkers();
      commander.lifecycle.served();
      return commander;
    } catch (IOException | RuntimeException e) {
      if (commander != null) {
        String kept = commander.end(e instanceof CommanderException ? "it failed" : String
            .valueOf(e), true, false);
        if (e instanceof CommanderException failure && kept != null) {
          throw new CommanderException(failure.reason(), failure.getMessage() + ". " + kept,
              failure.getCause());
        }
        if (kept != null) {
          LOG.log(Level.WARNING, kept);
        }
      } else {
        closeQuietly(lock);
        closeQuietly(runHome);
      }
      if (e instanceof CommanderException commanderException) {
        throw commanderException;
      }
      if (e instanceof ControlException control && refused(control)) {
        throw refusedOrUnusable(control);
      }
      throw new CommanderException(Reason.HOME_UNUSABLE, "the run in " + home + " could not be"
          + " set up (" + e + "); nothing runs and the lock was released", e);
    }
  }

  /**
   * Waits until no worker of a run before this one still writes into the freezer (a commander
   * killed leaves its workers freezing their users, {@link FreezerWriters}), before anything in
   * the freezer is adopted or swept.
   *
   * @throws CommanderException {@code HOME_HELD} when some still did after {@link #WRITERS_WAIT}
   */
  private static void awaitWriters(RunHome runHome, Path home) throws IOException {
    try (FileChannel writers = runHome.create(WRITERS)) {
      if (FreezerWriters.awaitNone(writers, Duration.ZERO)) {
        return;
      }
      LOG.log(Level.INFO, "workers of the run before still write their users into the freezer;"
          + " this start waits for them (" + WRITERS_WAIT.toSeconds() + " s at most) before it"
          + " adopts anything");
      if (!FreezerWriters.awaitNone(writers, WRITERS_WAIT)) {
        throw new CommanderException(Reason.HOME_HELD, "workers of the run before still write"
            + " into the freezer of " + home + " after " + WRITERS_WAIT.toSeconds() + " s (they"
            + " hold " + runHome.shown(WRITERS) + "); nothing was adopted, changed or started:"
            + " wait for them to exit, or kill them (their awake users are then lost), then start"
            + " again", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommanderException(Reason.HOME_UNUSABLE, "the start was interrupted while the"
          + " workers of the run before wrote into the freezer of " + home + "; nothing was"
          + " adopted, changed or started", e);
    }
  }

  /** Whether {@code e} is a refusal by the home's rule ({@link RunHome}). */
  private static boolean refused(ControlException e) {
    return switch (e.reason()) {
      case NOT_OWNED, WRITABLE_BY_OTHERS, NOT_PRIVATE, UNSAFE_PATH, NOT_A_REGULAR_FILE -> true;
      default -> false;
    };
  }

  private static CommanderException refusedOrUnusable(ControlException e) {
    return refused(e) ? new CommanderException(Reason.HOME_REFUSED, e.getMessage(), e)
        : new CommanderException(Reason.HOME_UNUSABLE, e.getMessage() + "; nothing was started",
            e);
  }

  /**
   * Takes the run lock on a thread of its own: the lock re-enters per thread, and a run is not a
   * thread's, so a second start in this JVM (from any thread) finds the home held.
   */
  private static ProcessLock acquireRunLock(Path home) throws LockException {
    CompletableFuture<ProcessLock> acquired = new CompletableFuture<>();
    Thread thread = Thread.ofVirtual().name("cryo-run-lock").start(() -> {
      try {
        acquired.complete(ProcessLock.acquire(home, Duration.ZERO, "cryo commander, pid "
            + ProcessHandle.current().pid()));
      } catch (LockException | RuntimeException e) {
        acquired.completeExceptionally(e);
      }
    });
    try {
      thread.join();
      return acquired.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommanderException(Reason.HOME_UNUSABLE, "interrupted while taking the run lock"
          + " of " + home, e);
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof LockException lockException) {
        throw lockException;
      }
      throw e;
    }
  }

  private void startWorkers() {
    List<CompletableFuture<WorkerHandle>> starts = new ArrayList<>();
    for (int i = 0; i < config.workers(); i++) {
      starts.add(supervisor.startWorker());
    }
    CompletableFuture<WorkerHandle> first = new CompletableFuture<>();
    CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new))
        .whenComplete((ignored, error) -> first.completeExceptionally(error != null
            ? error.getCause() != null ? error.getCause() : error
            : new IllegalStateException("no worker presented itself")));
    starts.forEach(start -> start.thenAccept(first::complete));
    long bound = config.presentation().plus(config.startBackoff().multipliedBy(2))
        .multipliedBy(config.startAttempts() + 1L).toMillis();
    try {
      first.get(bound, TimeUnit.MILLISECONDS);
      LOG.log(Level.INFO, receptionLine(home, placement.reception(supervisor.views())));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof CommanderException commanderException ? commanderException
          : new CommanderException(Reason.WORKER_START_FAILED, "no worker started: " + cause,
              cause);
    } catch (TimeoutException e) {
      throw new CommanderException(Reason.WORKER_START_FAILED, "no worker presented itself"
          + " within " + Duration.ofMillis(bound) + "; everything was stopped", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommanderException(Reason.WORKER_START_FAILED, "the start was interrupted", e);
    }
    measureFreezer();
    publishStatus();
    long beat = config.heartbeat().toMillis();
    ticker.scheduleWithFixedDelay(this::tick, beat, beat, TimeUnit.MILLISECONDS);
    supervisor.startHeartbeat(); // a thread of its own: the tick walks the freezer
    long expiryEvery = config.housekeeping().expiryInterval().toMillis();
    long sweepEvery = config.housekeeping().sweepInterval().toMillis();
    housekeeper.scheduleWithFixedDelay(() -> housekeeping("expiry", this::expireFrozen),
        expiryEvery, expiryEvery, TimeUnit.MILLISECONDS);
    housekeeper.scheduleWithFixedDelay(() -> housekeeping("sweep", this::sweepFreezer),
        sweepEvery, sweepEvery, TimeUnit.MILLISECONDS);
  }

  /**
   * The start's line naming the reception: the worker placement sends new connections to (the
   * oldest running one), which need not be the worker whose start completed first.
   */
  static String receptionLine(Path home, Verdict reception) {
    return switch (reception) {
      case Verdict.Place place -> "cryo runs in " + home + ": worker " + place.worker()
          + " is the reception";
      case Verdict.Saturated saturated -> "cryo runs in " + home + ": no worker receives new"
          + " connections yet (" + saturated.reason() + ")";
      default -> "cryo runs in " + home + ": the reception is " + reception;
    };
  }

  /**
   * What the start found of an earlier run, in one line (reboot data adopted, moved aside because
   * it did not read), or null when it found nothing.
   */
  public String startLine() {
    return startLine;
  }

  /**
   * A repair's order ({@link Routing.RepairOrders}): {@code worker} drops the copy of {@code user}
   * it holds at {@code generation}, a copy the maps do not give it. Sent without waiting (it is
   * asked under the maps' lock); fenced, so it touches nothing but that copy; a failure is logged,
   * and the next disagreement asks again.
   */
  private void dropCopy(String worker, String user, long generation) {
    supervisor.running(worker).filter(handle -> handle.wire() != null && handle.wire().isOpen())
        .ifPresent(handle -> handle.wire().orderCall(dev.cryo.wire.protocol.Methods.DROP_USER,
            dev.cryo.wire.protocol.ProtocolCodec.write(
                dev.cryo.wire.protocol.UserOrder.of(user, generation)), config.orderTimeout())
            .whenComplete((reply, failure) -> {
              if (failure != null) {
                LOG.log(Level.WARNING, "the repair's drop of '" + user + "' at generation "
                    + generation + " on worker " + worker + " was not done: " + failure);
              }
            }));
  }

  /**
   * Whether the run admits requests and socket handshakes: false once a drain began or the run
   * closed (the front answers 503, or 1013 for a handshake, with {@code Retry-After}).
   */
  public boolean admits() {
    return lifecycle.admits();
  }

  /**
   * Drains the run and closes it: admits nothing new (requests get 503 with {@code Retry-After}),
   * starts no worker, quits every worker into the freezer at once (each user frozen once his call
   * ends; calls still in flight {@code grace} after the order are cut, their callers answered 503),
   * writes the commander's item into the freezer root and renames the root to the reboot data
   * ({@code DIR/reboot}), which the next start adopts: every user comes back frozen. Then closes as
   * {@link #close} does ({@code run.json} marked ended, the lock released; the journal removed
   * when the reboot data was committed, kept otherwise, so the next start adopts it instead).
   *
   * <p>Phases ({@link Lifecycle}): begins while the run serves, at once; while a reload, the
   * replacement of a worker, the close of a spare worker or a quit runs, it stops admitting at
   * once, says {@code "<that change> is running: the drain will follow it"} to {@code progress},
   * and waits for it to end — a reload stops before its next worker, and the worker being quit ends
   * its quit first, so his users are frozen and carried. Hands over: the reboot data, and the
   * report naming every user carried and every one not carried, with why.
   *
   * <p>A drain that cannot write every user is refused and does not close the run: before any
   * worker quits, each awake user is ordered to freeze while his worker runs; when a worker
   * answers that it could not write one (a full disk), no worker is quit, nothing is committed or
   * deleted, the users it could not write stay awake and served on their workers, the run admits
   * again and serves on, and the stop request acted upon is withdrawn ({@code drain_refused};
   * {@link DrainReport#refused()} and {@link DrainReport#staying()} say who stays and why). The
   * users frozen meanwhile are in the working freezer and wake on their next request. A new drain
   * may be asked once space returned.
   *
   * @param progress receives a line about every second (users left, per worker), and the line
   *     above when it waits; called on this thread
   * @return what the drain did; its {@link DrainReport#summary()} is the last line to print
   * @throws IllegalStateException when a drain already began, the run is still starting, or it
   *     stops or is closed (nothing was changed)
   */
  public DrainReport drain(Duration grace, java.util.function.Consumer<String> progress)
      throws InterruptedException {
    try {
      lifecycle.beginDrain(progress);
    } catch (InterruptedException e) {
      end(null, false, false); // it admits nothing any more: a stop follows
      throw e;
    }
    DrainReport report = null;
    boolean servesOn = false;
    try {
      report = new Drain(home, routing, supervisor, quitter, freezer, config.clock(),
          () -> journal.flush(), lifecycle::stopped, config.orderTimeout())
          .run(grace, progress,
              () -> {
                try {
                  occupancyCheck.close(RELOAD_GRACE.plus(Duration.ofSeconds(30))); // no more steps
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      servesOn = report.refused() && servesOnAfterRefusal();
    } finally {
      if (!servesOn) {
        end(null, false, report != null && report.committed());
      }
    }
    return report;
  }

  /**
   * Hands a refused drain's run back to serving: starts allowed again, the stop request it acted
   * upon withdrawn (a new one may be asked, and the tick acts on it). False when a stop now came
   * meanwhile: the run ends as that stop says.
   */
  private boolean servesOnAfterRefusal() {
    if (!lifecycle.drainRefused()) {
      return false;
    }
    supervisor.resumeStarts();
    try {
      stopWatcher.withdraw();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the refused drain's stop request could not be withdrawn; a new"
          + " cryo stop finds it there: " + e);
    }
    stopRequested = false;
    return true;
  }

  /** Whether {@code connectionId} is a connection the maps know (the front mints a new one otherwise). */
  public boolean knowsConnection(String connectionId) {
    return routing.knowsConnection(connectionId);
  }

  /**
   * Serves one HTTP request of a connection (a connection the maps do not know is served as
   * anonymous: a guest is born for it on the reception). Blocks its caller for the call and at most
   * the hold budget of waits and retries. Never throws: 503 with {@code Retry-After} when held past
   * the wait, saturated or not running; 502 when the worker died during the call; 504 when it did
   * not answer within the call timeout; 500 when the worker refused it for good.
   */
  public Reply serve(Request request) {
    return dispatcher.serve(request);
  }

  /**
   * Whether {@code path} is under a prefix of the application's static files
   * ({@code routes.staticResources}) as a running worker presented it: such a request is served
   * by {@link #serveStatic}, for no connection and no user.
   */
  public boolean servesStatic(String path) {
    return path != null && staticFiles.covers(path);
  }

  /**
   * Serves one request for a static file of the application on any running worker that serves its
   * prefix, without a connection or a user: nothing is placed, born or woken, the maps are not
   * read. Never throws: 503 with {@code Retry-After} when no running worker serves it, 504 when
   * the worker did not answer within the call timeout.
   */
  public Reply serveStatic(String method, String path, String query,
      List<Map.Entry<String, String>> headers) {
    return staticFiles.serve(method, path, query == null ? "" : query, headers);
  }

  /** The routing maps, for a test to read. */
  Routing routing() {
    return routing;
  }

  /** The request path, for a test's seam ({@link Dispatcher#beforeBind}). */
  Dispatcher dispatcher() {
    return dispatcher;
  }

  /** The connection of {@code page}, when the maps know it (frozen users' pages included). */
  public Optional<String> connectionOfPage(String page) {
    return routing.connectionOfPage(page);
  }

  /**
   * Sends the workers' pushes to {@code sink} from now on (the front's sockets); until it is
   * called, a push reaches no socket. Thread-safe.
   */
  public void pushSink(PushSink sink) {
    pushRelay.sink(sink);
  }

  /**
   * Pushes {@code message} as a worker's push would (the application's side is the worker's
   * wire call {@code push}); for tests and benchmarks of the front's sockets.
   */
  public dev.cryo.wire.protocol.PushResult push(dev.cryo.wire.protocol.PushMessage message) {
    return pushRelay.push(message);
  }

  /**
   * Moves {@code user}: another worker that admits him is chosen (or started), he is held, frozen
   * on his worker, and his next request wakes him on the chosen one. Refused, with nothing changed,
   * when he lives on no worker, no other worker can take him, or he is held already; a failed
   * freeze leaves him alive where he was. Blocks for at most the order timeout plus a worker's start.
   */
  public MoveOutcome move(String user) {
    return mover.move(user, System.nanoTime() + config.hold().toNanos());
  }

  /**
   * Quits the worker {@code name} into the freezer: placement stops choosing it, its users are held
   * (their requests wait, within the hold budget), it freezes each once his call ends and cuts the
   * calls still in flight {@code grace} after the order, each frozen user's hold is released (his
   * next request wakes him on whichever worker placement picks), and its process is ended. Users
   * whose departure failed are lost (named in the outcome). A replacement is started, as after any
   * death, while fewer than the configured workers live. Begins only while the run serves (its
   * phase is then {@code shrinking}): refused {@code BUSY}, nothing changed, while a reload, a
   * replacement, another quit or a drain runs, {@code CLOSED} once the run stops; refused
   * {@code NOT_RUNNING} when no worker of that name is running. A drain asked during the quit
   * waits for it (and carries the users it froze). Blocks its caller until the worker's process
   * ended (at most the grace plus about two minutes); may be called from any thread.
   */
  public QuitOutcome quitWorker(String name, Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("a quit's grace is not negative, got " + grace);
    }
    Optional<String> refusal = lifecycle.beginChange(Lifecycle.Change.QUIT);
    if (refusal.isPresent()) {
      return QuitOutcome.refused(name, lifecycle.stopped() ? QuitOutcome.Refusal.CLOSED
          : QuitOutcome.Refusal.BUSY, refusal.get() + " (worker " + name + " was not quit)");
    }
    try {
      return quitter.quit(name, grace);
    } finally {
      lifecycle.endChange(Lifecycle.Change.QUIT);
    }
  }

  /** How long an old worker waits for calls in flight during a reload before it cuts them. */
  static final Duration RELOAD_GRACE = Duration.ofSeconds(5);

  /**
   * A rolling reload: the commander stays up, keeps its port and every open socket, and replaces
   * its running workers one at a time — a new worker started first (from {@code appPath}, the new
   * version's jar, when given), then the old one quit into the freezer with its users' requests
   * held (not refused) and served by whichever worker wakes them. New workers and wakes avoid the
   * workers still to be replaced. A new worker that does not start stops the reload there, the old
   * workers running on with the former application path. Blocks its caller until it is done; may be
   * called from any thread. Also what {@code cryo reload} reaches, through a request file read by
   * the tick.
   *
   * <p>Phases ({@link Lifecycle}): begins only while the run serves (its phase is then
   * {@code reloading}); refused {@code BUSY} while another change of workers runs, {@code DRAINING}
   * once a drain was asked, {@code CLOSED} while starting or once stopped — nothing changed. A drain
   * asked during it stops it before its next worker ({@code DRAINING}, the replaced workers named);
   * the worker being quit ends its quit, and the drain carries his users.
   *
   * <p>The application's configuration file ({@link CommanderConfig#appConfig()}, or the one the
   * last reload named) is read again before the first new worker starts: the new workers see its
   * contents now. A file that does not read refuses the reload ({@code BAD_APP_CONFIG}), nothing
   * changed.
   *
   * @param appPath the new version's jar, or null to keep the current one
   */
  public ReloadOutcome reload(Path appPath) {
    return reload(appPath, null, null);
  }

  /**
   * A rolling reload as {@link #reload(Path)}, which may also name another configuration file and
   * give the new workers other JVM options.
   *
   * @param appPath the new version's jar, or null to keep the current one
   * @param appConfig the configuration file from now on, or null to read the current one again
   * @param workerJvmOptions the new workers' JVM options beyond cryo's own (replacing the current
   *     ones; empty: none), or null to keep the current ones
   */
  public ReloadOutcome reload(Path appPath, Path appConfig, List<String> workerJvmOptions) {
    if (lifecycle.stopped()) {
      return new ReloadOutcome(ReloadOutcome.Refusal.CLOSED, List.of(), 0, List.of(), null, 0,
          "the commander is closed; nothing was reloaded");
    }
    return replacement.reload(appPath, appConfig, workerJvmOptions, RELOAD_GRACE);
  }

  /** The run, each worker, the users placed, frozen and lost, as of now. */
  public Status status() {
    Instant now = config.clock().instant();
    List<WorkerHandle> workers = new ArrayList<>(supervisor.workers());
    Optional<WorkerHandle> reception = workers.stream().filter(WorkerHandle::isRunning)
        .min(Comparator.comparingLong(WorkerHandle::order));
    List<Status.WorkerStatus> rows = new ArrayList<>();
    for (WorkerHandle handle : workers) {
      var photo = handle.photo();
      rows.add(new Status.WorkerStatus(handle.name(), handle.pid(), handle.state(),
          routing.usersOn(handle.name()).size(), photo == null ? 0 : photo.heapUsedBytes(),
          photo == null ? 0 : photo.heapMaxBytes(), Duration.between(handle.spawnedAt(), now),
          reception.isPresent() && reception.get() == handle,
          photo == null ? 0 : photo.ignoredStateFields(),
          photo == null ? List.of() : photo.appMeters()));
    }
    Routing.Counts counts = routing.counts();
    Lifecycle.Phase phase = lifecycle.phase();
    return new Status(lifecycle.stopped() ? "closed" : lifecycle.admits()
        || phase == Lifecycle.Phase.STARTING ? "running" : "draining", now, runState.invocationId(),
        runState.pid(), runState.startedAt().toInstant(), home.toString(), rows,
        counts.placed(), counts.frozen(), counts.lost(), counts.held(), counts.connections(),
        counts.pages(), counts.anomalies(), freezerUsage);
  }

  /**
   * Adds a listener that sees every event and every call to a worker from now on (see
   * {@link RunListener} for its threads). Listeners cannot be removed; they end with the run.
   */
  public void addListener(RunListener listener) {
    listeners.add(listener);
  }

  /** Measures the working freezer for the status: once per tick, on the tick's thread. */
  private void measureFreezer() {
    try {
      freezerUsage = FreezerUsage.measure(freezerRoot);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the freezer " + freezerRoot + " could not be measured (" + e
          + "); the status keeps its last measure");
    }
  }

  /**
   * Expires now every frozen user whose parcel is older than his time to live
   * ({@link Housekeeping}): the maps forget him and his connections, his folder is dropped. Runs by
   * itself every {@link Housekeeping#expiryInterval()}; may be called from any thread.
   *
   * @return the users expired, sorted
   */
  public List<String> expireFrozen() {
    return expiry.run();
  }

  /**
   * Sweeps the freezer now: drops every folder no identity of the maps answers for. Runs by itself
   * every {@link Housekeeping#sweepInterval()}; may be called from any thread.
   *
   * @return the keys of the folders dropped, sorted
   * @throws IOException when the freezer cannot be listed or a folder survives its removal
   */
  public List<String> sweepFreezer() throws IOException {
    return sweep.run();
  }

  private interface Round {
    List<String> run() throws IOException;
  }

  private void housekeeping(String what, Round round) {
    try {
      round.run();
    } catch (IOException | RuntimeException e) { // a throw would cancel every later round
      LOG.log(Level.WARNING, "a round of the " + what + " failed; the next one runs as usual: "
          + e);
    }
  }

  /** The run's event log file. */
  public Path eventLog() {
    return events.file();
  }

  private void tick() {
    try {
      occupancyCheck.tick();
      measureFreezer();
      publishStatus();
      reloadRequests.tick();
      Optional<StopMode> stop = stopWatcher.tick();
      String refusal = stopWatcher.refusal().orElse(null);
      if (refusal != null && !refusal.equals(lastStopRefusal)) {
        LOG.log(Level.WARNING, "a stop request was not acted upon: " + refusal);
      }
      lastStopRefusal = refusal;
      if (stop.isPresent() && !stopRequested) {
        stopRequested = true;
        StopMode mode = stop.get();
        LOG.log(Level.INFO, "a " + mode.code() + " stop was requested for this run");
        Thread.ofVirtual().name("cryo-stop-request").start(() -> config.onStopRequest()
            .accept(mode));
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "a tick of the commander failed: " + e);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) { // a throw would cancel every later tick: heartbeats, status, stops
      LOG.log(Level.ERROR, "a tick of the commander failed; the next tick runs as usual", e);
    }
  }

  private void publishStatus() {
    try {
      runHome.replace(Status.FILE_NAME, status().toJson());
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "status.json could not be written: " + e);
    }
  }

  /**
   * Stops now: kills every worker's process group (nothing is frozen), removes the journal (the
   * next start wipes the freezer, unless a drain committed its reboot data), writes the run's end
   * into {@code run.json} and a last {@code status.json}, and releases the run lock. Idempotent.
   * During the start (a start that fails closes so), it hands back instead, as
   * {@link #abandonStart} does.
   */
  @Override
  public void close() {
    end(null, false, false);
  }

  /**
   * Ends a run whose start its caller could not complete (the front's port or the admin port did
   * not bind), leaving the next start what this one found: its workers are killed, and the users
   * its start adopted are handed back — the reboot data committed again from its maps when the start
   * had taken reboot data, else its journal kept (it holds every carried user) — then it closes as
   * {@link #close} does. Begins in the phases {@code STARTING} and {@code SERVING}; meant for a run
   * that admitted no request yet (a user awake now is not frozen, and is named as not kept).
   *
   * @param why what failed, for the line
   * @return the one line that says what was kept and where, for the operator
   * @throws IllegalStateException when the run drains, reloads, stops or is closed (nothing was
   *     changed)
   */
  public String abandonStart(String why) {
    Lifecycle.Phase phase = lifecycle.phase();
    if (phase != Lifecycle.Phase.STARTING && phase != Lifecycle.Phase.SERVING) {
      throw new IllegalStateException("the run is " + phase.code() + "; its start is not given"
          + " up: stop it (cryo stop) instead");
    }
    String line = end(why, true, false);
    return line == null ? "the run was stopped meanwhile; nothing was handed back" : line;
  }

  /**
   * Ends the run, once: kills the workers, then hands back what the start adopted ({@code why}
   * non-null, or the run was still starting), or keeps the journal when a drain did not commit,
   * or removes it (a stop now, or a drain that committed).
   *
   * @return the hand-back's line, or null when nothing was handed back
   */
  private String end(String why, boolean handBack, boolean drainCommitted) {
    Optional<Lifecycle.Phase> was = lifecycle.beginStop();
    if (was.isEmpty()) {
      return null;
    }
    boolean givingBack = handBack || was.get() == Lifecycle.Phase.STARTING;
    ticker.shutdownNow();
    housekeeper.shutdownNow();
    supervisor.close();
    String line = null;
    Journal last = journal;
    if (givingBack) {
      line = handBack(why == null ? "the run was closed while it started" : why, last);
    } else if (last != null) { // a drain's end or a stop now: the next start reads no journal
      last.close(drainCommitted || was.get() != Lifecycle.Phase.DRAINING);
    }
    publishStatus();
    try {
      runDirectory.writeRunState(runState.endedAt(java.time.OffsetDateTime.now(ZoneOffset.UTC)));
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "run.json could not record the end of the run: " + e);
    }
    events.close();
    if (privateSockets != null) {
      deleteQuietly(privateSockets);
    }
    closeQuietly(lock);
    closeQuietly(runHome);
    lifecycle.closed();
    return line;
  }

  /** Hands back what the start adopted (see {@link #abandonStart}); its workers are dead. */
  private String handBack(String why, Journal last) {
    Routing.Snapshot maps = routing.snapshot();
    CommanderItem item = CommanderItem.of(maps, config.clock().instant(), "drain");
    java.util.TreeSet<String> awake = new java.util.TreeSet<>(maps.users().keySet());
    awake.removeAll(item.frozen());
    if (last != null) {
      last.close(false); // written whole: it holds every carried user
    }
    String kept;
    Adoption.Found taken = found;
    try {
      kept = taken == null ? "the home, untouched" : taken.handBack(runHome, freezer, item);
    } catch (IOException | RuntimeException e) {
      kept = "the journal " + runHome.shown(Journal.FILE_NAME) + " (the reboot data could not be"
          + " committed again: " + e.getMessage() + ")";
    }
    int count = item.frozen().size();
    if (count == 0 && awake.isEmpty() && (taken == null
        || taken.source() == Adoption.Source.NOTHING)) {
      String line = "the start did not complete (" + why + "); it had adopted no user, so nothing"
          + " was kept";
      LOG.log(Level.WARNING, line);
      return line;
    }
    String line = "the start did not complete (" + why + "); the " + DrainReport.users(count)
        + " it adopted " + (count == 1 ? "is" : "are") + " kept for the next start in " + kept
        + (awake.isEmpty() ? "" : "; " + DrainReport.users(awake.size()) + " awake were not kept"
            + " (never frozen): " + awake);
    LOG.log(Level.WARNING, line);
    return line;
  }

  private static void closeQuietly(RunHome runHome) {
    try {
      runHome.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the run directory's descriptor did not close: " + e);
    }
  }

  private static void deleteQuietly(Path directory) {
    try (var entries = Files.list(directory)) {
      for (Path entry : entries.toList()) {
        Files.deleteIfExists(entry);
      }
      Files.deleteIfExists(directory);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the socket directory " + directory + " was not removed: " + e);
    }
  }

  private static void closeQuietly(ProcessLock lock) {
    try {
      lock.close();
    } catch (LockException e) {
      LOG.log(Level.ERROR, "the run lock was not released: " + e.getMessage());
    }
  }
}
