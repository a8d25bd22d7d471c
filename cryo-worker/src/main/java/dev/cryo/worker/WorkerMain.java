package dev.cryo.worker;

import dev.cryo.app.Pushed;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerWriters;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.protocol.Location;
import dev.cryo.wire.protocol.Locate;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.PushResult;
import dev.cryo.wire.protocol.SpawnPayload;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The entry point of a worker process: reads its spawn payload from the environment variable
 * {@link SpawnPayload#ENVIRONMENT}, loads the application, connects to the commander's socket,
 * presents itself, and serves until its wire ends.
 *
 * <p>When the wire ends the commander is gone (killed, or it gave up on this worker): the worker
 * quits into the freezer on its own — every user frozen, his calls in flight cut after half of
 * {@link #COMMANDER_LOSS_GRACE} — and the process exits when the quit is done, or after
 * {@link #COMMANDER_LOSS_GRACE} at the latest. The parcels carry each stay's generation, so the
 * next commander adopts them as the users' newest state. For all that time the worker holds its
 * share of the run's writers file ({@link FreezerWriters}), which the next start waits for before
 * it adopts or sweeps anything. After a quit the commander asked for, the end of the wire ends the
 * process at once. Exit codes: 0 after a quit or the end of the wire, 78 for a spawn payload that
 * does not read, 70 when the start failed.
 *
 * <p>The system property {@value #QUIT_DEPARTURES_PROPERTY} sets how many of a quit's departures
 * run at once ({@link Worker.Builder#quitDeparturesAtOnce}); unset, the builder's default. It is
 * there to measure a drain against the loop of one departure at a time in the same build (a worker
 * JVM inherits {@code JAVA_TOOL_OPTIONS}); a value that is not a positive number is ignored, with a
 * warning.
 */
public final class WorkerMain {

  /**
   * The exit status of a worker whose application cannot be loaded ({@link AppHost.LoadException}:
   * no such class, no constructor, a constructor that throws, bad routes, a bad jar): a failure
   * the same at every attempt, so the commander does not try again (its {@code WorkerStart}
   * knows this status). The cause is in the worker's log.
   */
  public static final int CANNOT_START = 78;

  /**
   * The line a worker that cannot start writes on its standard error (its log) before the cause,
   * on one line: the commander reads the last such line into the start's refusal.
   */
  public static final String CANNOT_START_LINE = "cryo worker cannot start: ";


  private static final System.Logger LOG = System.getLogger(WorkerMain.class.getName());

  /** How long the commander has to accept the presentation. */
  static final Duration PRESENTATION_WAIT = Duration.ofSeconds(10);
  /** How long a {@code locate} may take before the login assumes the identity is elsewhere. */
  static final Duration LOCATE_WAIT = Duration.ofSeconds(5);
  /** How long a push may wait for the commander before it counts as having reached nothing. */
  static final Duration PUSH_WAIT = Duration.ofSeconds(5);

  /**
   * How long a worker that lost its commander may take to freeze its users before the process
   * ends whatever is left; the next start waits a little longer for it.
   */
  static final Duration COMMANDER_LOSS_GRACE = Duration.ofSeconds(10);

  /** The system property naming how many of a quit's departures run at once. */
  static final String QUIT_DEPARTURES_PROPERTY = "cryo.worker.quitDeparturesAtOnce";

  /**
   * The run's writers file, held shared for the life of the process; referenced here so that no
   * collection of an unreachable channel ever closes it (and lets the lock go) early.
   */
  @SuppressWarnings("unused")
  private static volatile FileChannel writers;

  private WorkerMain() {}

  /**
   * How many of a quit's departures run at once, read from {@code value} (the property's, or null
   * when unset): a positive number, else the builder's default (a warning says so when it was set).
   */
  static int quitDeparturesAtOnce(String value) {
    if (value == null) {
      return Worker.Builder.QUIT_DEPARTURES_AT_ONCE;
    }
    try {
      int parsed = Integer.parseInt(value.strip());
      if (parsed >= 1) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    LOG.log(Level.WARNING, QUIT_DEPARTURES_PROPERTY + "=" + value + " is not a positive number;"
        + " a quit runs " + Worker.Builder.QUIT_DEPARTURES_AT_ONCE + " departures at once");
    return Worker.Builder.QUIT_DEPARTURES_AT_ONCE;
  }

  /** Starts the worker process; see the class documentation. */
  public static void main(String[] args) {
    String json = System.getenv(SpawnPayload.ENVIRONMENT);
    SpawnPayload spawn;
    try {
      spawn = ProtocolCodec.read(json == null ? new byte[0] : json.getBytes(
          java.nio.charset.StandardCharsets.UTF_8), SpawnPayload.class);
    } catch (RuntimeException e) {
      System.err.println("cryo worker: the spawn payload in " + SpawnPayload.ENVIRONMENT
          + " does not read (" + e.getMessage() + "); nothing was started: a worker is started by"
          + " cryo serve, not by hand");
      System.exit(78);
      return;
    }
    try {
      run(spawn);
    } catch (AppHost.LoadException e) { // the same every time: no second attempt can mend it
      LOG.log(Level.ERROR, "worker " + spawn.name() + " cannot start: " + e.getMessage(), e);
      System.err.println(CANNOT_START_LINE + e.getMessage().replaceAll("\\s+", " "));
      System.err.flush();
      Runtime.getRuntime().halt(CANNOT_START);
    } catch (Exception e) {
      LOG.log(Level.ERROR, "worker " + spawn.name() + " failed to start: " + e, e);
      Runtime.getRuntime().halt(70);
    }
  }

  private static void run(SpawnPayload spawn) throws Exception {
    if (spawn.writers() != null) { // held for the life of the process: the kernel lets it go
      writers = FreezerWriters.hold(Path.of(spawn.writers()));
    }
    AppHost host = AppHost.load(spawn.application(),
        spawn.appPath() == null ? null : Path.of(spawn.appPath()));
    host.start(spawn.name(), spawn.appConfig()); // before any call
    AtomicReference<Worker> built = new AtomicReference<>();
    WireEndpoint endpoint = new WireEndpoint(() -> commanderLost(built.get()));
    SocketChannel channel = Wire.connect(Path.of(spawn.wire()));
    Wire wire = Wire.open(channel, spawn.name(), endpoint, Methods.WORKER_CALLS,
        Methods.WORKER_EVENTS, WireLimits.defaults());
    Worker.Builder builder = Worker.builder(spawn.name(), new Freezer(Path.of(spawn.freezer())))
        .group(spawn.group())
        .application(host)
        .listener(endpoint)
        .identityLocator(user -> locate(wire, user))
        .quitDeparturesAtOnce(quitDeparturesAtOnce(System.getProperty(QUIT_DEPARTURES_PROPERTY)));
    idleValve(builder, spawn);
    if (spawn.checkpointMillis() != null) {
      builder.checkpointEvery(Duration.ofMillis(spawn.checkpointMillis()));
    }
    CollectionPressure.install(HeapValve.LINE).ifPresentOrElse(builder::heapValve,
        () -> LOG.log(Level.WARNING, "worker " + spawn.name() + ": this JVM has no heap pool"
            + " with a collection usage threshold; the heap valve is off"));
    Worker worker = builder.build();
    built.set(worker);
    endpoint.bind(worker, wire);
    host.pusher((target, key, json) -> push(wire, target, key, json));
    ProcessHandle self = ProcessHandle.current();
    long started = self.info().startInstant().map(instant -> instant.toEpochMilli()).orElse(0L);
    List<List<String>> moves = host.moveRoutes();
    Presentation presentation = new Presentation(spawn.name(), spawn.group(), self.pid(), started,
        spawn, endpoint.photo(), moves, host.stateVersion(), host.staticPrefixes());
    wire.call(Methods.PRESENT, ProtocolCodec.write(presentation), PRESENTATION_WAIT).join();
    LOG.log(Level.INFO, "worker " + spawn.name() + " (pid " + self.pid() + ") presented itself"
        + " and serves " + spawn.application());
    new CountDownLatch(1).await(); // the end of the wire halts the process
  }

  /**
   * Turns the idle valve on as the payload asks ({@link SpawnPayload#idleFreezeMillis()},
   * {@link SpawnPayload#emptyGuestIdleFreezeMillis()}; null is off), checked every
   * {@link Worker.Builder#idleCheckPeriod} of the shortest limit.
   */
  static void idleValve(Worker.Builder builder, SpawnPayload spawn) {
    Duration limit = spawn.idleFreezeMillis() == null ? null
        : Duration.ofMillis(spawn.idleFreezeMillis());
    Duration guests = spawn.emptyGuestIdleFreezeMillis() == null ? null
        : Duration.ofMillis(spawn.emptyGuestIdleFreezeMillis());
    if (limit == null && guests == null) {
      return;
    }
    Duration shortest = limit == null ? guests : guests == null || limit.compareTo(guests) < 0
        ? limit : guests;
    Duration every = Worker.Builder.idleCheckPeriod(shortest);
    if (limit != null) {
      builder.idleFreeze(limit, every);
    }
    if (guests != null) {
      builder.emptyGuestIdleFreeze(guests, every);
    }
  }

  /**
   * The end of the wire: the worker quits into the freezer (a quit begun already, the commander's,
   * is waited for instead), then the process halts; it halts after {@link #COMMANDER_LOSS_GRACE}
   * whatever the quit did. Called once or more, from any thread.
   */
  static void commanderLost(Worker worker) {
    if (worker == null) { // the wire ended before the worker was built: nobody to freeze
      Runtime.getRuntime().halt(0);
      return;
    }
    Thread.ofPlatform().daemon().name("cryo-commander-lost-halt").start(() -> {
      try {
        Thread.sleep(COMMANDER_LOSS_GRACE); // the bound of the whole freeze, not a synchronisation
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      LOG.log(Level.WARNING, "worker " + worker.name() + " lost its commander and could not"
          + " freeze every user within " + COMMANDER_LOSS_GRACE.toSeconds() + " s; it exits, and"
          + " the users left in its memory are lost");
      Runtime.getRuntime().halt(0);
    });
    try {
      QuitReport report = worker.quitWithoutCommander(worker.freezer(), Duration.ZERO,
          COMMANDER_LOSS_GRACE.dividedBy(2)).get();
      LOG.log(Level.INFO, "worker " + worker.name() + " lost its commander and froze its users"
          + " into " + worker.freezer().root() + ": " + report);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.log(Level.ERROR, "worker " + worker.name() + " lost its commander and its quit failed;"
          + " the users left in its memory are lost", e.getCause());
    }
    Runtime.getRuntime().halt(0);
  }

  /** One push through the commander; a push that cannot be had reaches nothing (logged). */
  private static Pushed push(Wire wire, String target, String key, byte[] json) {
    try {
      PushResult result = ProtocolCodec.read(wire.call(Methods.PUSH,
          ProtocolCodec.write(new PushMessage(target, key, json)), PUSH_WAIT).join(),
          PushResult.class);
      return new Pushed(result.pages(), result.written());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a push to " + target + " " + key + " reached nothing: " + e);
      return Pushed.NOTHING;
    }
  }

  private static IdentityLocator.Location locate(Wire wire, String user) {
    Location location = ProtocolCodec.read(wire.call(Methods.LOCATE,
        ProtocolCodec.write(new Locate(user)), LOCATE_WAIT).join(), Location.class);
    if (!location.known()) { // never "nowhere" from a commander: it claims, or the user is held
      throw new IllegalStateException("the commander neither placed '" + user + "' nor claimed"
          + " him for this worker (he is held by an operation in progress)");
    }
    return new IdentityLocator.Location(location.worker(), location.frozen(),
        location.generation(), location.claimed());
  }
}
