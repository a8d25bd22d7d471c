package dev.cryo.cli;

import dev.cryo.admin.Admin;
import dev.cryo.admin.AdminException;
import dev.cryo.admin.AdminListener;
import dev.cryo.admin.AdminToken;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.CommanderException;
import dev.cryo.commander.Housekeeping;
import dev.cryo.commander.LogCaps;
import dev.cryo.commander.Passivation;
import dev.cryo.control.ControlException;
import dev.cryo.front.Front;
import dev.cryo.front.FrontException;
import dev.cryo.front.Upstream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cryo serve}: one run of cryo — a commander holding the run directory, its worker JVMs,
 * and the public HTTP port in front of them — serving an application (the demo by default) until
 * it is stopped.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Serve an application: a commander, its worker processes, one HTTP port.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Takes the run directory (a second cryo serve on it exits 75 naming the holder), writes"
            + " run.json, starts the workers and the HTTP port, and prints one line with the URL"
            + " once the first worker (the reception) has presented itself. Each user lives in one"
            + " worker's memory; a user a worker lets go is frozen into DIR/freezer and woken by"
            + " whichever worker serves his next request.",
        "",
        "Ctrl-C, SIGTERM or 'cryo stop --home DIR' drains: nothing new is admitted (503 with"
            + " Retry-After), every worker freezes its users into DIR/freezer as their calls end"
            + " (calls still running after --drain-grace are cut, answered 503), the commander"
            + " writes its maps beside them and renames the freezer to DIR/reboot, then exits 0."
            + " Progress lines go to stderr; the last says how many users were carried and how"
            + " long it took. The next cryo serve on DIR adopts DIR/reboot: every user comes back"
            + " frozen, his cookie resolves, and he wakes on his next request.",
        "",
        "A drain that cannot write every user (a full disk) is refused: no worker quits,"
            + " nothing is committed or deleted, and the serve does not exit: it prints who stays"
            + " and why, keeps serving everyone, and drains again at the next Ctrl-C, SIGTERM or"
            + " cryo stop once space returned (cryo stop --wait exits 73 meanwhile).",
        "",
        "A second Ctrl-C or SIGTERM during a drain, or 'cryo stop --mode now', stops at once:"
            + " nothing is frozen and the next start wipes the freezer (users lose their state)."
            + " A serve killed with SIGKILL leaves its journal, and its workers freeze their users:"
            + " the next start waits for them and brings everyone back (a user who left no parcel"
            + " is named lost).",
        "",
        "DIR defaults to $CRYO_HOME, else $XDG_STATE_HOME/cryo, else ~/.local/state/cryo."
            + " It is created 0700 when missing, and must belong to the user cryo serve runs as"
            + " and be writable by nobody else (docs/security.md)."
            + " 'cryo status --home DIR' shows the run."
    },
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:stopped",
        "73:a drain quit its workers but could not commit the reboot data (a full disk): the"
            + " journal is kept and the next start adopts it",
        "64:the command line is wrong",
        "65:the run directory, or a file or directory in it, is another user's, writable by"
            + " others, or a link or special file; or it is readable by others and no run"
            + " directory (the line names it; nothing was changed)",
        "69:the run could not start (the port, the workers, the application): the line says why;"
            + " the users it adopted are kept for the next start",
        "74:the file system refused an operation on the run directory",
        "75:another cryo serve holds the run directory"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo serve",
        "  cryo serve --port 9000 --workers 3 --home /srv/app/run",
        "  cryo serve --app com.example.Notes --app-path notes.jar"
    })
final class ServeCommand implements Callable<Integer> {

  /** Jetty's own log, kept to warnings: its start-up lines say nothing a user of cryo needs. */
  private static final java.util.logging.Logger JETTY_LOG =
      java.util.logging.Logger.getLogger("org.eclipse.jetty");

  static {
    JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  /** The application served when --app is not given. */
  static final String DEMO = "dev.cryo.demo.DemoApplication";

  @Spec CommandSpec spec;

  @Option(names = "--home", paramLabel = "DIR", description = "The run directory.")
  Path home;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
      description = "The HTTP port (0: any free port). Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address the port is bound to. Default: ${DEFAULT-VALUE}.")
  String bind;

  @Option(names = "--workers", paramLabel = "N", defaultValue = "2",
      description = "Workers started with the run. Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(names = "--max-workers", paramLabel = "N",
      description = "The most workers alive at once. Default: twice --workers, at least 4.")
  Integer maxWorkers;

  @Option(names = "--placement-header",
      description = "Every reply a worker served names it and the generation of the user's stay"
          + " there (Cryo-Placement: worker=NAME; generation=G), for an auditor. Off by default.")
  boolean placementHeader;

  @Option(names = "--max-users-per-worker", paramLabel = "N", defaultValue = "100000",
      description = "The most users placed on one worker. Default: ${DEFAULT-VALUE}.")
  int maxUsersPerWorker;

  @Option(names = "--worker-heap", paramLabel = "SIZE", defaultValue = "256m",
      converter = SizeConverter.class,
      description = "Each worker JVM's heap ceiling (k, m, g). Default: ${DEFAULT-VALUE}.")
  long workerHeap;

  @Option(names = "--max-body", paramLabel = "SIZE", defaultValue = "1m",
      converter = SizeConverter.class,
      description = "The largest request body; larger is 413. Default: ${DEFAULT-VALUE}.")
  long maxBody;

  @Option(names = "--max-buffered-bodies", paramLabel = "SIZE", defaultValue = "64m",
      converter = SizeConverter.class,
      description = "The request-body bytes held at once across all requests; a body that would"
          + " take them past it is 503 bodies_over_budget with Retry-After (raised to --max-body"
          + " if lower). Default: ${DEFAULT-VALUE}.")
  long maxBufferedBodies;

  @Option(names = "--max-connections", paramLabel = "N", defaultValue = "10000",
      description = "TCP connections open at once on the port; one more is closed as soon as it"
          + " is accepted. Default: ${DEFAULT-VALUE}.")
  int maxConnections;

  @Option(names = "--max-connections-per-address", paramLabel = "N", defaultValue = "256",
      description = "TCP connections open at once from one client address; one more from it is"
          + " closed as soon as it is accepted (behind a reverse proxy every client has its"
          + " address: raise this to --max-connections). Default: ${DEFAULT-VALUE}.")
  int maxConnectionsPerAddress;

  @Option(names = "--new-visitors-per-address", paramLabel = "RATE[/BURST]|off",
      defaultValue = "20/100", converter = NewVisitorBudgetConverter.class,
      description = "New visitors (requests without a known cookie: each makes a new guest) one"
          + " client address may make, a second and at once; past it 429 too_many_new_visitors"
          + " with Retry-After, nothing made. A known cookie is never counted. Behind a reverse"
          + " proxy every client has its address: raise this or turn it off. Default:"
          + " ${DEFAULT-VALUE}.")
  dev.cryo.front.NewVisitorBudget newVisitorsPerAddress;

  @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "30s",
      converter = DurationConverter.class,
      description = "How long a request may take to arrive: its headers, then its body, each"
          + " within it; a connection still receiving past it is closed, however slowly its"
          + " bytes come. Waiting for the reply is not counted. Default: ${DEFAULT-VALUE}.")
  Duration requestTimeout;

  @Option(names = "--max-sockets", paramLabel = "N", defaultValue = "10000",
      description = "Page sockets (/_cryo/ws) open at once; one more is closed with 1013 (try"
          + " again later). Default: ${DEFAULT-VALUE}.")
  int maxSockets;

  @Option(names = "--max-sockets-per-connection", paramLabel = "N", defaultValue = "32",
      description = "Page sockets open at once for one browser connection (one cookie: its tabs);"
          + " one more is closed with 1008. Default: ${DEFAULT-VALUE}.")
  int maxSocketsPerConnection;

  @Option(names = "--secure-cookie",
      description = "Mark the connection cookie Secure (when served behind TLS).")
  boolean secureCookie;

  @Option(names = "--admin-port", paramLabel = "PORT",
      description = "Serve the status page, status.json and metrics on this port (0: any free"
          + " port); none by default.")
  Integer adminPort;

  @Option(names = "--admin-bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address of the admin port; other than loopback only with --admin-token."
          + " Default: ${DEFAULT-VALUE}.")
  String adminBind;

  @Option(names = "--admin-token", paramLabel = "TOKEN", defaultValue = "${env:CRYO_ADMIN_TOKEN}",
      description = "Require this token (Authorization: Bearer TOKEN) on the admin paths, and serve"
          + " them on the public port too. Default: $CRYO_ADMIN_TOKEN (safer than the command"
          + " line, which other users can see).")
  String adminToken;

  @Option(names = "--allowed-origin", paramLabel = "ORIGIN",
      description = "An origin besides the page's own whose pages may open the page socket"
          + " /_cryo/ws and send state-changing requests (anything but GET, HEAD, OPTIONS;"
          + " from any other site they are 403 cross_site) (https://app.example); repeatable."
          + " Default: the page's own origin only.")
  java.util.List<String> allowedOrigins = new java.util.ArrayList<>();

  @Option(names = "--app", paramLabel = "CLASS", defaultValue = DEMO,
      description = "The application's class. Default: the demo, ${DEFAULT-VALUE}.")
  String application;

  @Option(names = "--drain-grace", paramLabel = "DURATION", defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How long a drain waits for calls in flight before it cuts them (503)."
          + " Default: ${DEFAULT-VALUE}.")
  java.time.Duration drainGrace;

  @Option(names = "--app-path", paramLabel = "JAR",
      description = "A jar the application is loaded from (else the classpath).")
  Path appPath;

  @Option(names = "--app-config", paramLabel = "FILE",
      description = "The application's configuration, a Java properties file (UTF-8, key=value,"
          + " at most 64 KiB): read now and at every cryo reload, given to the application's"
          + " onStart (AppContext.config()). Default: none (an empty configuration).")
  Path appConfig;

  @Option(names = "--worker-jvm-option", paramLabel = "OPTION",
      description = "An option of every worker JVM beyond cryo's own, such as"
          + " --worker-jvm-option=-Dfeature=on or --worker-jvm-option=-XX:+UseZGC; repeat for"
          + " several. cryo reload may give others. Default: none.")
  java.util.List<String> workerJvmOptions = new java.util.ArrayList<>();

  @Option(names = "--frozen-user-ttl", paramLabel = "DURATION", defaultValue = "720h",
      converter = DurationConverter.class,
      description = "How long a frozen user is kept after his last freeze (checked every"
          + " minute); then his folder is dropped and his connections forgotten."
          + " Default: ${DEFAULT-VALUE}.")
  Duration frozenUserTtl;

  @Option(names = "--frozen-guest-ttl", paramLabel = "DURATION", defaultValue = "24h",
      converter = DurationConverter.class,
      description = "The same for a guest (a user who never logged in). Default: ${DEFAULT-VALUE}.")
  Duration frozenGuestTtl;

  @Option(names = "--events-max-size", paramLabel = "SIZE", defaultValue = "64m",
      converter = SizeConverter.class,
      description = "The size past which the event log events.jsonl is rotated, between two lines,"
          + " to events.1.jsonl (older parts move up one number). Default: ${DEFAULT-VALUE}.")
  long eventsMaxSize;

  @Option(names = "--events-keep", paramLabel = "N", defaultValue = "4",
      description = "How many rotated parts of the event log are kept (events.1.jsonl to"
          + " events.N.jsonl); the oldest beyond is removed. Default: ${DEFAULT-VALUE}.")
  int eventsKeep;

  @Option(names = "--worker-logs-keep", paramLabel = "N", defaultValue = "32",
      description = "How many files workers/ keeps: at each spawn the least recently written logs"
          + " of workers no longer running are removed beyond it (never a running worker's)."
          + " Default: ${DEFAULT-VALUE}.")
  int workerLogsKeep;

  @Option(names = "--worker-log-max-size", paramLabel = "SIZE", defaultValue = "16m",
      converter = SizeConverter.class,
      description = "The size past which a running worker's log is cut, checked every heartbeat:"
          + " its content moves to NAME.log.1 (replacing the one before) and the log begins"
          + " again. Default: ${DEFAULT-VALUE}.")
  long workerLogMaxSize;

  @Option(names = "--frozen-empty-guest-ttl", paramLabel = "DURATION", defaultValue = "10m",
      converter = DurationConverter.class,
      description = "The same for a guest frozen by the idle valve while he held nothing"
          + " (see --idle-guest-freeze): a flood of visitors leaves no lasting disk."
          + " Default: ${DEFAULT-VALUE}.")
  Duration frozenEmptyGuestTtl;

  @Option(names = "--idle-freeze", paramLabel = "DURATION|off", defaultValue = "10m",
      converter = IdleLimitConverter.class,
      description = "How long a user may stay idle (no call of his) before his worker freezes him"
          + " to disk; his next request wakes him anywhere. 'off' keeps idle users in memory."
          + " Default: ${DEFAULT-VALUE}.")
  Duration idleFreeze;

  @Option(names = "--idle-guest-freeze", paramLabel = "DURATION|off", defaultValue = "30s",
      converter = IdleLimitConverter.class,
      description = "The same for a guest who holds nothing (his stores all empty: he never"
          + " wrote anything). Default: ${DEFAULT-VALUE}.")
  Duration idleGuestFreeze;

  @Option(names = "--checkpoint", paramLabel = "DURATION|off", defaultValue = "1s",
      converter = IdleLimitConverter.class,
      description = "How often each worker writes behind the state of the awake users who changed"
          + " since, while they stay awake: a worker that dies then loses at most that much of"
          + " their writes (they come back from their checkpoint, named with its age) instead"
          + " of all of it. 'off' writes nothing behind. Default: ${DEFAULT-VALUE}.")
  Duration checkpoint;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (frozenUserTtl.isZero() || frozenGuestTtl.isZero() || frozenEmptyGuestTtl.isZero()) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_ttl", "--frozen-user-ttl,"
          + " --frozen-guest-ttl and --frozen-empty-guest-ttl must be longer than zero; nothing"
          + " was started", null);
    }
    Path directory = (home != null ? home : StopCommand.defaultHome(System.getenv()))
        .toAbsolutePath();
    if (appPath != null && !Files.isRegularFile(appPath)) {
      throw new CommandFailure(ExitCodes.USAGE, "no_such_jar", "--app-path " + appPath
          + " is not a file; nothing was started: give the jar the application is in", null);
    }
    if (appConfig != null) {
      try {
        dev.cryo.commander.AppConfigFile.read(appConfig);
      } catch (IllegalArgumentException e) {
        throw new CommandFailure(ExitCodes.USAGE, "bad_app_config", "--app-config: "
            + e.getMessage() + "; nothing was started", null);
      }
    }
    checkJvmOptions(workerJvmOptions, "nothing was started");
    LogCaps logCaps = logCaps();
    AdminToken token = adminToken();
    dev.cryo.front.ClientLimits clientLimits = clientLimits();
    if (adminPort != null && (adminPort < 0 || adminPort > 65535)) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_admin_port", "--admin-port " + adminPort
          + " is not a port (0 to 65535); nothing was started", null);
    }
    if (adminPort != null && token == null && !Admin.isLoopbackAddress(adminBind)) {
      throw new CommandFailure(ExitCodes.USAGE, "admin_not_loopback", "--admin-bind " + adminBind
          + " is not a loopback address and no --admin-token is set; nothing was started: the"
          + " status and metrics go to the network only behind a token", null);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<Commander> running = new AtomicReference<>();
    AtomicReference<Front> serving = new AtomicReference<>();
    AtomicReference<Admin> administering = new AtomicReference<>();
    Runnable stop = () -> {
      Admin admin = administering.getAndSet(null);
      if (admin != null) {
        admin.close();
      }
      Front front = serving.getAndSet(null);
      if (front != null) {
        front.close();
      }
      Commander commander = running.getAndSet(null);
      if (commander != null) {
        commander.close();
      }
      stopped.countDown();
    };
    PrintWriter err = spec.commandLine().getErr();
    ServeStop stops = new ServeStop(running, serving, stop, stopped, drainGrace, err);
    // Registered before the start: a Ctrl-C while the workers come up still stops them cleanly.
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "cryo-serve-stop"));
    stops.installSignals();
    CommanderConfig config = CommanderConfig.builder(directory, application)
        .workers(workers)
        .maxWorkers(maxWorkers != null ? maxWorkers : Math.max(4, 2 * workers))
        .maxUsersPerWorker(maxUsersPerWorker)
        .workerHeapBytes(workerHeap)
        .appPath(appPath == null ? null : appPath.toAbsolutePath())
        .appConfig(appConfig == null ? null : appConfig.toAbsolutePath().normalize())
        .workerJvmOptions(workerJvmOptions)
        .housekeeping(Housekeeping.DEFAULTS.withFrozenUserTtl(frozenUserTtl)
            .withFrozenGuestTtl(frozenGuestTtl).withFrozenEmptyGuestTtl(frozenEmptyGuestTtl))
        .onStopRequest(stops::requested)
        .placementHeader(placementHeader)
        .logCaps(logCaps)
        .passivation(new Passivation(idleFreeze, idleGuestFreeze))
        .checkpoint(checkpoint)
        .build();
    Commander commander;
    try {
      commander = Commander.start(config);
    } catch (CommanderException e) {
      throw failure(e);
    }
    running.set(commander);
    Front.Builder frontBuilder = Front.builder(Upstream.of(commander)).port(port).bind(bind)
        .maxBody(maxBody).maxBufferedBodies(maxBufferedBodies).secureCookie(secureCookie).allowedOrigins(allowedOrigins)
        .clientLimits(clientLimits).newVisitors(newVisitorsPerAddress);
    Admin admin = null;
    if (adminPort != null || token != null) {
      admin = Admin.builder(commander::status).token(token).eventLog(commander.eventLog())
          .build();
      administering.set(admin);
      commander.addListener(admin.runListener());
      frontBuilder.requestListener(admin.requestListener());
      admin.publicHandler().ifPresent(frontBuilder::addCryoHandler);
    }
    Front front = frontBuilder.build();
    serving.set(front);
    if (admin != null) {
      admin.bindSockets(front.sockets());
      admin.bindLimits(front.limits());
    }
    if (admin != null && adminPort != null) {
      try {
        AdminListener listener = admin.listen(adminBind, adminPort);
        out.println("cryo admin: http://" + hostForUrl(adminBind) + ":" + listener.port()
            + "/_cryo/status" + (token == null ? "" : " (token required)"));
      } catch (AdminException e) {
        handBack(running, e.getMessage(), err);
        stop.run();
        throw new CommandFailure(ExitCodes.UNAVAILABLE, e.reason(), e.getMessage(), e);
      }
    }
    try {
      front.start();
    } catch (FrontException e) {
      handBack(running, e.getMessage(), err);
      stop.run();
      throw new CommandFailure(ExitCodes.UNAVAILABLE, "port_unavailable", e.getMessage(), e);
    }
    if (commander.startLine() != null) {
      err.println("cryo: " + commander.startLine());
      err.flush();
    }
    out.println("cryo serves http://" + hostForUrl(bind) + ":" + front.port() + "/ (run "
        + directory + ", " + workers + " workers; Ctrl-C drains)");
    out.flush();
    stopped.await();
    return stops.exitCode();
  }

  private dev.cryo.front.ClientLimits clientLimits() {
    try {
      return new dev.cryo.front.ClientLimits(maxConnections, maxConnectionsPerAddress,
          requestTimeout, maxSockets, maxSocketsPerConnection);
    } catch (IllegalArgumentException e) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_limit", "--max-connections,"
          + " --max-connections-per-address, --request-timeout, --max-sockets,"
          + " --max-sockets-per-connection: " + e.getMessage() + "; nothing was started", e);
    }
  }

  /**
   * A start that cannot complete (a port did not bind) gives back what it adopted, so that the next
   * {@code cryo serve} finds every carried user as this one found him; says so in one line.
   */
  private static void handBack(AtomicReference<Commander> running, String why, PrintWriter err) {
    Commander commander = running.getAndSet(null);
    if (commander == null) {
      return; // stopped meanwhile
    }
    try {
      err.println("cryo: " + commander.abandonStart(why));
    } catch (IllegalStateException e) {
      err.println("cryo: " + e.getMessage());
    }
    err.flush();
  }

  /** The log caps of the options, or a usage failure naming the one below its least. */
  private LogCaps logCaps() throws CommandFailure {
    if (eventsMaxSize < 1 || eventsKeep < 1 || workerLogsKeep < 1 || workerLogMaxSize < 1) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_log_cap", "--events-max-size,"
          + " --events-keep, --worker-logs-keep and --worker-log-max-size must each be at least 1"
          + " (got " + eventsMaxSize + ", " + eventsKeep + ", " + workerLogsKeep + ", "
          + workerLogMaxSize + "); nothing was started", null);
    }
    return new LogCaps(eventsMaxSize, eventsKeep, workerLogsKeep, workerLogMaxSize);
  }

  private AdminToken adminToken() {
    if (adminToken == null || adminToken.isEmpty()) {
      return null;
    }
    try {
      return AdminToken.of(adminToken);
    } catch (IllegalArgumentException e) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_admin_token", "--admin-token: "
          + e.getMessage() + "; nothing was started", e);
    }
  }

  private static String hostForUrl(String bind) {
    if (bind.equals("0.0.0.0") || bind.equals("::")) {
      return "127.0.0.1";
    }
    return bind.contains(":") ? "[" + bind + "]" : bind;
  }

  /**
   * Refuses worker JVM options that are not options (no leading {@code -}) or that would replace
   * what cryo starts a worker with (its class path, a jar).
   */
  static void checkJvmOptions(java.util.List<String> options, String kept) {
    for (String option : options) {
      if (!option.startsWith("-") || option.isBlank() || java.util.Set.of("-cp", "-classpath",
          "--class-path", "-jar", "--module-path", "-p", "-m", "--module").contains(option)
          || option.startsWith("--class-path=") || option.startsWith("-Djava.class.path=")) {
        throw new CommandFailure(ExitCodes.USAGE, "bad_worker_jvm_option", "--worker-jvm-option '"
            + option + "' is not a JVM option cryo can pass a worker (an option starts with '-';"
            + " the class path and the main class are cryo's); " + kept
            + ": write it as --worker-jvm-option=-Dname=value", null);
      }
    }
  }

  private static CommandFailure failure(CommanderException e) {
    return switch (e.reason()) {
      case HOME_HELD -> new CommandFailure(ExitCodes.BUSY, e.reason().code(), e.getMessage(), e);
      case HOME_REFUSED -> new CommandFailure(ExitCodes.DATA,
          e.getCause() instanceof ControlException control ? control.reason().code()
              : e.reason().code(), e.getMessage(), e);
      default -> new CommandFailure(ExitCodes.UNAVAILABLE, e.reason().code(), e.getMessage(), e);
    };
  }
}
