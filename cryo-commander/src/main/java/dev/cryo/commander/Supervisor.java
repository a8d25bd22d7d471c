package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.freezer.Freezer;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireException;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.PhotoRequest;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.PushResult;
import dev.cryo.wire.protocol.SpawnPayload;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The worker processes of a run: their starts (spawn, presentation within the timeout, retries with
 * a backoff), their heartbeat (a ping each tick; two beats without a word, or two beats of pings
 * unanswered while other frames still come, and the group is killed)
 * and their deaths (the unfrozen users lost and their folders dropped, the frozen ones untouched, a
 * replacement started while fewer than the configured workers live).
 *
 * <p>Threads: each start runs on a virtual thread of its own; deaths are buried on a virtual thread
 * of their own; {@link #heartbeat} runs every beat on the supervisor's own heartbeat thread
 * ({@link #startHeartbeat}), which runs nothing else: no walk of the freezer, no status, no
 * housekeeping round can delay a silence check or a ping (a tick that walked 22,000 frozen users
 * for 5.9 s once got healthy workers killed as silent). It writes nothing on that thread (its pings
 * go out on virtual threads, so no wire's write lock can stop it). Every method is thread-safe.
 */
final class Supervisor implements WorkerLink.Events, AutoCloseable {

  /** The group every worker of this commander belongs to. */
  static final String GROUP = "main";
  /** The death reason of a worker heard from but whose pings went unanswered for two beats. */
  static final String UNANSWERED = "answered no ping for two heartbeats while it still sent"
      + " frames: its process group was killed";

  private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());
  private static final Executor VIRTUAL = command -> Thread.ofVirtual().start(command);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final CommanderConfig config;
  private final Routing routing;
  /** The births placed on a worker whose call has not ended: counted in its occupancy. */
  private final BirthsInFlight births = new BirthsInFlight();
  private final Freezer freezer;
  private final Path sockets;
  private final RunHome home;
  private final String logs;
  private final WorkerLogs workerLogs;
  /** Whether a cut of the workers' logs is under way (one at a time, off the heartbeat). */
  private final java.util.concurrent.atomic.AtomicBoolean cutting =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final Map<String, WorkerHandle> handles = new LinkedHashMap<>(); // guarded by this
  private final Object changes = new Object();
  private long generation; // guarded by changes
  private long names; // guarded by this
  private long orders; // guarded by this
  private boolean closing; // guarded by this
  private volatile PushRelay pushRelay;
  private boolean startsHeld; // guarded by this: a drain starts no worker
  /** Runs {@link #heartbeat} every beat, and nothing else. */
  private final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor(
      runnable -> {
        Thread thread = new Thread(runnable, "cryo-commander-heartbeat");
        thread.setDaemon(true);
        return thread;
      });
  private boolean beating; // guarded by this

  /** The application path of later workers: the configuration's, until a reload changes it. */
  private volatile Path appPath;
  /** The configuration file later workers' configuration is read from at a reload, or null. */
  private volatile Path appConfigPath;
  /** The configuration of later workers: read at the start, read again at every reload. */
  private volatile Map<String, String> appConfig;
  /** The JVM options of later workers: the configuration's, until a reload changes them. */
  private volatile List<String> jvmOptions;
  /** Workers a replacement is about to retire: shown to placement as not running. */
  private final java.util.Set<String> retiring = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * A supervisor binding its workers' sockets in {@code sockets} and appending each worker's
   * output to {@code logs/NAME.log} of {@code home}.
   */
  Supervisor(CommanderConfig config, Routing routing, Freezer freezer, Path sockets,
      RunHome home, String logs) {
    this.config = config;
    this.routing = routing;
    this.freezer = freezer;
    this.sockets = sockets;
    this.home = home;
    this.logs = logs;
    this.workerLogs = new WorkerLogs(home, logs, config.logCaps());
    this.appPath = config.appPath();
    this.appConfigPath = config.appConfig();
    this.appConfig = appConfigPath == null ? Map.of() : AppConfigFile.read(appConfigPath);
    this.jvmOptions = config.workerJvmOptions();
  }

  /** Where the workers' pushes go from now on. */
  void pushRelay(PushRelay relay) {
    this.pushRelay = relay;
  }

  @Override
  public PushResult push(PushMessage message) {
    PushRelay relay = pushRelay;
    return relay == null ? new PushResult(0, 0) : relay.push(message);
  }

  // ------------------------------------------------------------------------------- reading

  /** Every worker not dead, in birth order. */
  synchronized List<WorkerHandle> workers() {
    return List.copyOf(handles.values());
  }

  /** The running worker named {@code name}. */
  synchronized Optional<WorkerHandle> running(String name) {
    WorkerHandle handle = handles.get(name);
    return handle != null && handle.isRunning() ? Optional.of(handle) : Optional.empty();
  }

  /** The births in flight, counted against their workers' occupancy by {@link #views()}. */
  BirthsInFlight births() {
    return births;
  }

  /**
   * What placement knows of every worker not dead, its occupancy counting the births in flight on
   * it ({@link BirthsInFlight}); a worker a replacement is about to retire is
   * shown as not running (it serves those living on it, but nobody new is placed or woken there).
   */
  List<WorkerView> views() {
    List<WorkerView> views = new ArrayList<>();
    for (WorkerHandle handle : workers()) {
      if (handle.state() != WorkerState.DEAD && handle.state() != WorkerState.STARTING) {
        WorkerView view = handle.view(routing.occupancy(handle.name())
            + births.count(handle.name()));
        views.add(retiring.contains(handle.name()) ? new WorkerView(view.name(), view.order(),
            false, view.occupancy(), view.heapUsedBytes(), view.heapMaxBytes()) : view);
      }
    }
    return views;
  }

  /** The application path new workers load the application from, or null for the classpath. */
  Path appPath() {
    return appPath;
  }

  /** Starts every later worker with {@code value} as its application path (null: the classpath). */
  void useAppPath(Path value) {
    appPath = value;
  }

  /** The configuration file a reload reads again, or null for none. */
  Path appConfigPath() {
    return appConfigPath;
  }

  /** The configuration later workers are started with. */
  Map<String, String> appConfig() {
    return appConfig;
  }

  /** Starts every later worker with {@code contents}, read from {@code file} (null: none). */
  void useAppConfig(Path file, Map<String, String> contents) {
    appConfigPath = file;
    appConfig = Map.copyOf(contents);
  }

  /** The JVM options later workers are started with, beyond cryo's own. */
  List<String> jvmOptions() {
    return jvmOptions;
  }

  /** Starts every later worker with {@code value} as its JVM options beyond cryo's own. */
  void useJvmOptions(List<String> value) {
    jvmOptions = List.copyOf(value);
  }

  /**
   * Marks {@code names} as about to be retired by a replacement ({@code true}) — placement stops
   * choosing them for anybody new, so a user is not woken on a worker that will quit next — or
   * unmarks them ({@code false}).
   */
  void retiring(java.util.Collection<String> names, boolean value) {
    if (value) {
      retiring.addAll(names);
    } else {
      retiring.removeAll(names);
    }
  }

  /** How many workers are starting. */
  int starting() {
    int count = 0;
    for (WorkerHandle handle : workers()) {
      if (handle.state() == WorkerState.STARTING) {
        count++;
      }
    }
    return count;
  }

  /** The count of changes (presentations, deaths, abandoned starts) so far. */
  long generation() {
    synchronized (changes) {
      return generation;
    }
  }

  /**
   * Waits until a change happens after {@code seen} (see {@link #generation()}) or the deadline.
   *
   * @return whether one happened
   */
  boolean awaitChange(long seen, long deadlineNanos) throws InterruptedException {
    synchronized (changes) {
      while (generation == seen) {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(changes, remaining);
      }
      return true;
    }
  }

  private void changed() {
    synchronized (changes) {
      generation++;
      changes.notifyAll();
    }
  }

  // ------------------------------------------------------------------------------- starting

  /**
   * Starts one new worker in the background.
   *
   * @return completes with the worker once it presented itself, or fails with a
   *     {@link CommanderException} ({@code WORKER_START_FAILED}) once its start was abandoned
   */
  CompletableFuture<WorkerHandle> startWorker() {
    WorkerHandle handle;
    synchronized (this) {
      if (closing || startsHeld) {
        return CompletableFuture.failedFuture(new CommanderException(
            CommanderException.Reason.CLOSED, "the commander is closing or draining; no worker is"
                + " started", null));
      }
      handle = register();
    }
    Thread.ofVirtual().name("cryo-start-" + handle.name()).start(() -> runStart(handle));
    return handle.presented();
  }

  /**
   * Starts a worker when fewer than the configured workers are alive or starting (after a death,
   * or after a replacement's start was abandoned): the count and the start are one step, so two
   * callers never both start one for the same gap.
   */
  void keepWorkers() {
    WorkerHandle handle;
    synchronized (this) {
      int alive = 0;
      for (WorkerHandle other : handles.values()) {
        WorkerState state = other.state();
        if (state == WorkerState.STARTING || state == WorkerState.RUNNING) {
          alive++;
        }
      }
      if (closing || startsHeld || alive >= config.workers()) {
        return;
      }
      handle = register();
    }
    LOG.log(Level.INFO, "fewer than " + config.workers() + " workers are alive: " + handle.name()
        + " is started");
    Thread.ofVirtual().name("cryo-start-" + handle.name()).start(() -> runStart(handle));
  }

  /** A new worker's handle, registered as starting; the caller holds this supervisor's lock. */
  private WorkerHandle register() {
    String name = String.format("%s_%04d", GROUP, ++names);
    Path socket = sockets.resolve(name + ".sock");
    SpawnPayload spawn = new SpawnPayload(name, GROUP, socket.toString(),
        freezer.root().toString(), config.application(),
        appPath == null ? null : appPath.toString(), config.workerHeapBytes(),
        home.shown(Commander.WRITERS).toString(), config.passivation().idleFreezeMillis(),
        config.passivation().idleGuestFreezeMillis(),
        config.checkpoint() == null ? null : config.checkpoint().toMillis(), appConfig,
        jvmOptions);
    WorkerHandle handle = new WorkerHandle(spawn, config.clock().instant());
    handles.put(name, handle);
    return handle;
  }

  private void runStart(WorkerHandle handle) {
    Duration backoff = config.startBackoff();
    String failure = null;
    for (int attempt = 1; attempt <= config.startAttempts(); attempt++) {
      failure = attemptStart(handle, attempt);
      if (failure == null) {
        return;
      }
      LOG.log(Level.WARNING, "worker " + handle.name() + " did not start (attempt " + attempt
          + " of " + config.startAttempts() + "): " + failure);
      note("worker_start_failed", handle, "attempt", attempt, "reason", failure);
      if (cannotStart(handle)) {
        String cause = causeInLog(handle);
        failure = failure + ": its application cannot be loaded or started, which no second"
            + " attempt mends (" + (cause == null ? "the cause is in its log" : cause) + ")";
        break;
      }
      if (isClosing() || attempt == config.startAttempts()) {
        break;
      }
      try {
        Thread.sleep(backoff.toMillis()); // the backoff between two attempts, not a synchronisation
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF
          : backoff.multipliedBy(2);
    }
    handle.die("start abandoned: " + failure);
    synchronized (this) {
      handles.remove(handle.name());
    }
    note("worker_start_abandoned", handle, "reason", failure);
    handle.abandon(new CommanderException(CommanderException.Reason.WORKER_START_FAILED,
        "worker " + handle.name() + " could not be started" + (cannotStart(handle)
            ? "" : " in " + config.startAttempts() + " attempts") + "; the last attempt failed: "
            + failure + "; nothing of it runs: read its log "
            + home.shown(logs + "/" + WorkerStart.logName(handle.name()))
            + " and check --app and the worker command",
        null));
    changed();
  }

  /** The line a worker that cannot start writes to its log, before the cause. */
  static final String CANNOT_START_LINE = "cryo worker cannot start: ";

  /**
   * The cause a worker that exited with {@link WorkerStart#CANNOT_START} wrote to its log (the last
   * line beginning with {@link #CANNOT_START_LINE}), or null when there is none to read.
   */
  private String causeInLog(WorkerHandle handle) {
    try {
      Optional<byte[]> log = home.read(logs + "/" + WorkerStart.logName(handle.name()),
          4 * 1024 * 1024);
      if (log.isEmpty()) {
        return null;
      }
      String cause = null;
      for (String line : new String(log.get(), java.nio.charset.StandardCharsets.UTF_8)
          .split("\n")) {
        if (line.startsWith(CANNOT_START_LINE)) {
          cause = line.substring(CANNOT_START_LINE.length()).strip();
        }
      }
      return cause;
    } catch (IOException | RuntimeException e) {
      return null; // the log is the worker's: what it holds never fails a start's report
    }
  }

  /** Whether the worker's process exited with {@link WorkerStart#CANNOT_START}. */
  private static boolean cannotStart(WorkerHandle handle) {
    WorkerProcess process = handle.process();
    Integer status = process == null ? null : process.exitStatus();
    return status != null && status == WorkerStart.CANNOT_START;
  }

  /** One attempt; null when the worker presented itself, else why it failed (all of it killed). */
  private String attemptStart(WorkerHandle handle, int attempt) {
    java.util.Set<String> alive;
    synchronized (this) {
      alive = java.util.Set.copyOf(handles.keySet()); // this one's among them
    }
    workerLogs.prune(alive, handle.name());
    return new WorkerStart(config, handle, routing, this, home, logs)
        .run(process -> {
          synchronized (this) {
            if (closing || startsHeld || handle.state() != WorkerState.STARTING) {
              return false;
            }
            handle.attempt(process);
          }
          note("worker_spawned", handle, "attempt", attempt, "pid", process.pid());
          return true;
        }, presented -> presented.onExit().thenRun(() -> death(handle,
            "its process exited with status " + presented.exitStatus())));
  }

  @Override
  public synchronized long nextOrder() {
    return ++orders;
  }

  @Override
  public void presented(WorkerHandle handle) {
    note("worker_presented", handle, "pid", handle.pid());
    LOG.log(Level.INFO, "worker " + handle.name() + " (pid " + handle.pid() + ") presented itself");
    handle.announcePresented();
    changed();
  }

  @Override
  public void wireClosed(WorkerHandle handle, Wire wire, String reason) {
    if (handle.state() != WorkerState.STARTING) { // a start's own failure is its attempt's
      death(handle, "its wire ended (" + reason + ")");
    }
  }

  // ------------------------------------------------------------------------------- heartbeat

  /**
   * Starts the heartbeat: {@link #heartbeat} every {@link CommanderConfig#heartbeat()} on a thread
   * of its own (a daemon platform thread), until {@link #close}. A beat that throws is logged and
   * the next one runs as usual. Idempotent; does nothing once closing.
   */
  void startHeartbeat() {
    synchronized (this) {
      if (beating || closing) {
        return;
      }
      beating = true;
    }
    long beat = config.heartbeat().toMillis();
    beats.scheduleWithFixedDelay(this::beat, beat, beat, TimeUnit.MILLISECONDS);
  }

  private void beat() {
    try {
      heartbeat();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a heartbeat failed; the next one runs as usual: " + e);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) { // a throw would cancel every later beat, and every silence check
      LOG.log(Level.ERROR, "a heartbeat failed; the next one runs as usual", e);
    }
  }

  /**
   * One beat: a worker is started when fewer than the configured ones are alive or starting;
   * every running or quitting worker is pinged (its photo refreshed), unless a ping is in flight;
   * one silent for more than two beats, or whose pings went unanswered for more than two beats
   * (it still sends frames but reads none, or serves no call), has its process group killed and is
   * buried. Never blocks on a wire: each ping is written on a virtual thread of its own.
   */
  void heartbeat() {
    keepWorkers();
    cutLogs();
    long twoBeats = config.heartbeat().multipliedBy(2).toNanos();
    for (WorkerHandle handle : workers()) {
      WorkerState state = handle.state();
      if (state != WorkerState.RUNNING && state != WorkerState.QUITTING) {
        continue;
      }
      if (handle.silentNanos() > twoBeats) {
        LOG.log(Level.WARNING, "worker " + handle.name() + " missed two heartbeats; its process"
            + " group is killed");
        death(handle, "silent for two heartbeats: its process group was killed");
        continue;
      }
      if (handle.unansweredNanos() > twoBeats) { // heard, but its frames answer no ping
        LOG.log(Level.WARNING, "worker " + handle.name() + " answered no ping for two"
            + " heartbeats while it still sent frames (it reads nothing, or serves no call); its"
            + " process group is killed");
        death(handle, UNANSWERED);
        continue;
      }
      Wire wire = handle.wire();
      if (wire == null || !handle.startPing()) {
        continue;
      }
      // Written on a thread of its own, never on the tick's: a writer blocked on a wire whose
      // worker stopped reading holds that wire's write lock, and a ping queued behind it would
      // stop the tick, the silence count of every worker and so this worker's kill with it.
      Thread.ofVirtual().name("cryo-ping-" + handle.name()).start(() -> ping(handle, wire));
    }
  }

  /**
   * Cuts the logs of the workers alive that passed their size ({@link WorkerLogs#cut}), on a
   * virtual thread (a copy of a few MiB never delays a beat), one cut at a time.
   */
  private void cutLogs() {
    if (!cutting.compareAndSet(false, true)) {
      return;
    }
    List<String> alive = workers().stream().map(WorkerHandle::name).toList();
    Thread.ofVirtual().name("cryo-worker-logs").start(() -> {
      try {
        workerLogs.cut(alive);
      } finally {
        cutting.set(false);
      }
    });
  }

  /**
   * One heartbeat ping of {@code handle}: its photo refreshed when it answers, and the maps
   * reconciled with the page of its users the photo carries (the next ping asks for the next
   * page; users outside a page are neither found absent nor cleared by it). An answer (a reply,
   * or an error reply) proves the worker alive: it is heard and its unanswered stretch ends; a
   * timeout or the wire's end leaves both counting; a ping this side refused to send counts for
   * nothing.
   */
  private void ping(WorkerHandle handle, Wire wire) {
    CompletableFuture<byte[]> reply;
    try {
      reply = wire.call(Methods.PING,
          ProtocolCodec.write(new PhotoRequest(handle.nextPhotoAfter())),
          config.heartbeat().multipliedBy(2));
    } catch (RuntimeException e) { // a bug, not the worker's silence: the next beat tries again
      handle.pingNotSent();
      LOG.log(Level.WARNING, "the ping of worker " + handle.name() + " failed: " + e);
      return;
    }
    reply.whenCompleteAsync((bytes, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        WireException.Reason reason = cause instanceof WireException wireError
            ? wireError.reason() : null;
        if (reason == WireException.Reason.REMOTE_FAILURE) {
          handle.pingAnswered(); // refused, but read and answered: alive
          LOG.log(Level.WARNING, "worker " + handle.name() + " answered its ping with an error ("
              + cause.getMessage() + "); it is alive and kept, its last photo stands");
        } else if (reason == WireException.Reason.TOO_MANY_PENDING
            || reason == WireException.Reason.FRAME_TOO_LARGE) {
          handle.pingNotSent();
        } else {
          handle.pingUnanswered();
        }
        return;
      }
      handle.pingAnswered();
      try {
        PhotoMessage photo = ProtocolCodec.read(bytes, PhotoMessage.class);
        handle.photo(photo);
        Map<String, Long> held = new HashMap<>();
        photo.users().forEach((user, entry) -> held.put(user, entry.generation()));
        routing.reconcile(handle.name(), held, photo::covers); // its page's users only
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "the photo of worker " + handle.name() + " does not read: "
            + e.getMessage());
        handle.heard();
      }
    }, VIRTUAL);
  }

  // ------------------------------------------------------------------------------- deaths

  /** The worker is dead (its wire ended, its process exited, or it fell silent): bury it. */
  void death(WorkerHandle handle, String reason) {
    death(handle, reason, false);
  }

  /** As {@link #death(WorkerHandle, String)}; {@code planned} when the run ends it on purpose. */
  private void death(WorkerHandle handle, String reason, boolean planned) {
    if (!handle.die(reason)) {
      return;
    }
    Thread.ofVirtual().name("cryo-bury-" + handle.name()).start(() -> bury(handle, reason,
        planned));
  }

  /**
   * Ends a worker that quit (or was told to): marks it dead with {@code reason} and buries it as any
   * death: its group killed at once, then its wire closed, its users not frozen lost, a replacement
   * started while fewer than the configured workers live. A worker that reported its quit has
   * nothing left to do (its users are frozen and announced, its disk work is over, and at the end of
   * its wire it would only halt, writing nothing), so it is not waited for: its JVM's own exit
   * waits a third of a second for threads blocked in native code (longer while it compiles), which
   * a drain would pay before its commit. Blocks its caller until the process was reaped (bounded by
   * the kill's wait); thread-safe.
   *
   * @param planned whether its quit reported (a planned end: its {@code worker_died} says so, and
   *     the metrics count it apart from deaths); false when the quit failed
   * @return the users lost with it (not frozen when it ended), sorted; empty when it was dead already
   */
  List<String> retire(WorkerHandle handle, String reason, boolean planned) {
    if (!handle.die(reason)) {
      return List.of();
    }
    return bury(handle, reason, planned);
  }

  private List<String> bury(WorkerHandle handle, String reason, boolean planned) {
    // Killed before its wire is closed: a live worker never sees the end of its wire, so it never
    // acts on it (it would only halt); the wire's own end, once it comes, finds the handle dead.
    WorkerProcess process = handle.process();
    boolean gone = process == null || process.killGroup();
    if (!gone) {
      LOG.log(Level.ERROR, "worker " + handle.name() + " (pid " + process.pid() + ") survived"
          + " SIGKILL of its group; its users are dropped all the same");
    }
    Wire wire = handle.wire();
    if (wire != null) {
      wire.close();
    }
    // Only once nothing of it can write any more: the parcels it left of its stays
    Map<String, UserParcels> left = gone ? parcelsLeft(handle.name()) : Map.of();
    List<String> lost = routing.workerDied(handle.name(), reason, planned, left);
    for (String user : lost) {
      try {
        freezer.dropUserFolder(user);
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "the folder of lost user '" + user + "' could not be dropped: "
            + e.getMessage());
      }
    }
    if (lost.isEmpty()) {
      LOG.log(reason.startsWith(Quitter.REASON) ? Level.INFO : Level.WARNING, "worker "
          + handle.name() + " died (" + reason + "); no user was lost");
    } else {
      LOG.log(Level.WARNING, "worker " + handle.name() + " died (" + reason + "); " + lost.size()
          + " users that were not frozen are lost (they must log in again): " + lost);
    }
    synchronized (this) {
      handles.remove(handle.name());
    }
    changed();
    keepWorkers(); // the tick does it too, should this start be abandoned
    return lost;
  }

  /**
   * The parcels a dead worker left of the stays it held (its checkpoints, a freeze it did not live
   * to announce, or the parcel a stay was woken from and had not written over yet): for each user
   * the maps give it, his user parcel when it is of that stay's generation, else the parcel his
   * wake set aside when it is of the generation he was woken from ({@link Routing#wokenFrom}),
   * put back as his user parcel. A parcel that does not read is none.
   */
  private Map<String, UserParcels> parcelsLeft(String worker) {
    Map<String, UserParcels> left = new HashMap<>();
    routing.staysOn(worker).forEach((user, generation) -> {
      if (generation <= 0) {
        return;
      }
      try {
        Optional<Object> parcel = freezer.readUserParcel(user);
        if (parcel.isPresent() && parcel.get() instanceof Map<?, ?> map
            && Grant.generationOf(map) == generation) {
          left.put(user, UserParcels.read(freezer, user, map));
          return;
        }
        long wokenFrom = routing.wokenFrom(user);
        Optional<Object> woken = wokenFrom > 0 ? freezer.readWokenParcel(user) : Optional.empty();
        if (woken.isPresent() && woken.get() instanceof Map<?, ?> map
            && Grant.generationOf(map) == wokenFrom) {
          // His stay wrote nothing of his own before its worker died: frozen back at what his
          // wake read, put back where his next wake reads it (nobody else writes his folder).
          freezer.restoreWokenParcel(user);
          left.put(user, UserParcels.read(freezer, user, map));
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "the parcel '" + user + "' left on worker " + worker + "'s death"
            + " does not read (" + e.getMessage() + "); he is lost with it");
      }
    });
    return left;
  }

  // ------------------------------------------------------------------------------- closing

  /**
   * Starts no worker from now on (a drain): neither a replacement nor one placement asks for; the
   * workers still starting are killed and buried.
   */
  void holdStarts() {
    List<WorkerHandle> starting = new ArrayList<>();
    synchronized (this) {
      startsHeld = true;
      for (WorkerHandle handle : handles.values()) {
        if (handle.state() == WorkerState.STARTING) {
          starting.add(handle);
        }
      }
    }
    for (WorkerHandle handle : starting) {
      death(handle, "the run drains: its start was abandoned", true);
    }
  }

  /**
   * Starts workers again as before {@link #holdStarts}: a drain that was refused (a user could not
   * be written) hands the run back to serving.
   */
  synchronized void resumeStarts() {
    startsHeld = false;
  }

  synchronized boolean isClosing() {
    return closing;
  }

  /** Kills every worker's process group, now. Idempotent. */
  @Override
  public void close() {
    List<WorkerHandle> all;
    synchronized (this) {
      closing = true;
      all = List.copyOf(handles.values());
    }
    beats.shutdownNow();
    for (WorkerHandle handle : all) {
      handle.die("the commander closed");
      Wire wire = handle.wire();
      if (wire != null) {
        wire.close();
      }
      WorkerProcess process = handle.process();
      if (process != null) {
        process.killGroup();
      }
    }
    changed();
  }

  private void note(String event, WorkerHandle handle, Object... pairs) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", handle.name());
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      fields.put((String) pairs[i], pairs[i + 1]);
    }
    routing.note(event, fields);
  }
}
