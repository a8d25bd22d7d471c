package dev.cryo.worker;

import dev.cryo.app.Call;
import dev.cryo.app.CallHost;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Dispatcher;
import dev.cryo.app.FreezeReason;
import dev.cryo.app.HostPolicy;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Move;
import dev.cryo.app.Pushed;
import dev.cryo.app.Request;
import dev.cryo.app.Response;
import dev.cryo.app.Scope;
import dev.cryo.app.StateException;
import dev.cryo.app.StateHost;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Row;
import dev.cryo.register.Store;
import dev.cryo.register.StoreException;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.MoveInfo;
import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.wire.protocol.StaticCall;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The worker's application host: serves a {@link CryoApplication}'s HTTP calls through its routes,
 * keeps its typed state in the worker's stores, runs its hooks — under the {@link HostPolicy} the
 * test kit shares, so that what passes in the kit behaves the same here.
 *
 * <pre>{@code
 * AppHost host = AppHost.load("dev.cryo.demo.DemoApplication", null);
 * Worker worker = Worker.builder("w1", freezer).application(host).build();
 * Response reply = host.serve(worker, new HttpCall(null, "c1", Grant.ALONE, "POST", "/api/pages",
 *     "", List.of(), new byte[0], null));
 * }</pre>
 *
 * <h2>The call</h2>
 *
 * <p>{@link #serve} is the one way a call reaches the worker: it takes the wire's {@link HttpCall}
 * and makes the application's {@link Request} of it once; the call opens a request slot on the
 * worker for its user and connection under the commander's grant (no page: it stamps the
 * connection's and the user's clocks as a human event), and the request goes to the application's
 * routes. A handler reaches a row's store only through this host, under the row's lock, one store
 * action at a time, marked as a store action for the lock order ({@link LockOrder}). With {@code socketless} (the commander's word
 * that no page socket was bound anywhere when it sent the call), a push of the call to a page,
 * connection or user this worker holds is answered here — its pages counted from the worker's
 * registry, none written — instead of being relayed; any other push is relayed. The application's
 * own failures are a {@code 500} with a generic body (logged), never a throw. A refusal of the
 * worker met while serving (the user left, the worker finished, the identity could not be located)
 * is thrown as that {@link WorkerException}, for the commander to route again — also when the
 * application caught it or an after filter ({@link dev.cryo.app.Routes#after}) answered it
 * otherwise (after the handler wrote state: a {@code 503 interrupted}); state this version
 * cannot read is answered with {@link HostPolicy#unreadableParcel}.
 *
 * <h2>One turn per user</h2>
 *
 * <p>The calls of one user run one at a time, in the order they reach the host (a fair lock per
 * user); different users run in parallel. After a login in place the call goes on in the new
 * identity's turn.
 *
 * <h2>Where typed state lives</h2>
 *
 * <p>A state of class {@code T} is plain data at the top level of the worker's {@link Store} of its
 * row — the user's, the connection's, the page's — under one key: {@code T}'s
 * {@link dev.cryo.app.StateKey}, else its simple name (and then, under that name followed by
 * {@code @class}, the binary name of the class that wrote it). So the freezer carries it with its
 * row, a guest's user store follows him into his first identity, and {@code cryo freezer} shows it.
 *
 * <h2>Hooks</h2>
 *
 * <p>As {@link HostPolicy} says, a stay being the user's row here (a row that comes back from the
 * freezer is a new object): {@link CryoApplication#onWake} runs in the user's turn before his
 * first call served since his row arrived (born, woken, adopted); {@link CryoApplication#onFreeze}
 * before the worker freezes him ({@link #beforeFreeze}); {@link CryoApplication#onPageClosed} when
 * the worker closed pages for good ({@link #pagesClosed}), in the user's turn.
 *
 * <p>Thread-safe.
 */
public final class AppHost {

  private static final System.Logger LOG = System.getLogger(AppHost.class.getName());

  private final Dispatcher dispatcher;
  private final HostPolicy policy;
  private final UserTurns turns = new UserTurns();
  private final SecureRandom random = new SecureRandom();
  private volatile Pusher pusher = Pusher.NOWHERE;
  private final java.util.concurrent.atomic.AtomicBoolean stopped =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final AppMeters meters = new AppMeters();

  /**
   * A host of {@code application}; asks it for its routes.
   *
   * @throws LoadException {@link LoadException.Reason#BAD_ROUTES} when declaring them failed
   */
  public AppHost(CryoApplication application) {
    try {
      this.dispatcher = Dispatcher.of(Objects.requireNonNull(application, "application"));
      this.policy = HostPolicy.of(dispatcher);
    } catch (IllegalArgumentException e) {
      throw new LoadException(LoadException.Reason.BAD_ROUTES, e.getMessage()
          + "; the worker cannot serve it: fix its routes", e);
    }
  }

  /**
   * Sends the application's pushes to {@code value} from now on (in the worker process: the wire
   * call {@code push}); until then they reach nothing. Thread-safe.
   */
  public void pusher(Pusher value) {
    this.pusher = Objects.requireNonNull(value, "pusher");
  }

  /**
   * Loads the application named by {@code --app} (and {@code --app-path}): the class
   * {@code className}, from the worker's classpath, or from {@code jarOrNull} by the rule of
   * {@link ApplicationClassLoader} (the API and the libraries it shares — Jackson, SLF4J,
   * Micrometer — from cryo, each such library the jar bundles too told in one warning at load;
   * everything else from the jar first); makes one instance with its public no-argument
   * constructor and asks it for its routes. The thread's context class loader is the
   * application's while its code runs (static initialisers, constructor, routes), as it is for its
   * calls and hooks, so that what it looks up through {@link java.util.ServiceLoader} is found in
   * its jar.
   *
   * @param className the application's binary class name
   * @param jarOrNull a jar holding it and what it needs beyond cryo-app, or null
   * @throws LoadException saying what is wrong and what to do, with its reason
   */
  public static AppHost load(String className, Path jarOrNull) {
    Objects.requireNonNull(className, "className");
    ClassLoader loader = AppHost.class.getClassLoader();
    if (jarOrNull != null) {
      if (!Files.isRegularFile(jarOrNull) || !Files.isReadable(jarOrNull)) {
        throw new LoadException(LoadException.Reason.BAD_JAR, "the application's jar " + jarOrNull
            + " is not a readable file; nothing was loaded: pass --app-path a jar that exists");
      }
      try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jarOrNull.toFile())) {
        if (jar.size() == 0) {
          throw new LoadException(LoadException.Reason.BAD_JAR, "the application's jar "
              + jarOrNull + " is empty; nothing was loaded: pass --app-path the jar of the"
              + " application");
        }
        for (String conflict : ApplicationClassLoader.conflicts(jarOrNull, loader)) {
          LOG.log(System.Logger.Level.WARNING, conflict);
        }
        loader = new ApplicationClassLoader(jarOrNull, loader); // its rule: docs/app.md
      } catch (IOException e) {
        throw new LoadException(LoadException.Reason.BAD_JAR, "the application's jar " + jarOrNull
            + " cannot be opened (" + e.getMessage() + "); nothing was loaded", e);
      }
    }
    Thread thread = Thread.currentThread();
    ClassLoader context = thread.getContextClassLoader();
    thread.setContextClassLoader(loader); // the application's, while its own code runs
    try {
      return make(className, jarOrNull, loader);
    } finally {
      thread.setContextClassLoader(context);
    }
  }

  private static AppHost make(String className, Path jarOrNull, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ClassNotFoundException e) {
      throw new LoadException(LoadException.Reason.NOT_FOUND, "no class " + className + " on the"
          + " worker's classpath" + (jarOrNull == null ? "" : " nor in " + jarOrNull)
          + "; nothing was loaded: check --app (a binary name such as com.example.MyApp) and"
          + " --app-path", e);
    } catch (LinkageError e) {
      throw new LoadException(LoadException.Reason.CANNOT_MAKE, "class " + className + " could not"
          + " be loaded (" + e + "); nothing was loaded: build it against this cryo-app", e);
    }
    if (!CryoApplication.class.isAssignableFrom(type)) {
      throw new LoadException(LoadException.Reason.NOT_AN_APPLICATION, "class " + className
          + " is not a " + CryoApplication.class.getName() + "; nothing was loaded: name the class"
          + " that implements it" + (type.getClassLoader() != null
              && CryoApplication.class.getClassLoader() != null
              && implementsByName(type) ? " (it implements a CryoApplication of another"
              + " cryo-app: do not bundle cryo-app into the application's jar)" : ""));
    }
    if (Modifier.isAbstract(type.getModifiers()) || type.isInterface()) {
      throw new LoadException(LoadException.Reason.CANNOT_MAKE, "class " + className + " is"
          + " abstract; nothing was loaded: name a concrete application class");
    }
    CryoApplication application;
    try {
      Constructor<?> constructor = type.getConstructor();
      application = (CryoApplication) constructor.newInstance();
    } catch (NoSuchMethodException e) {
      throw new LoadException(LoadException.Reason.CANNOT_MAKE, "class " + className + " has no"
          + " public no-argument constructor; nothing was loaded: add one", e);
    } catch (InvocationTargetException e) {
      throw new LoadException(LoadException.Reason.CANNOT_MAKE, "the constructor of " + className
          + " threw " + e.getCause() + "; nothing was loaded: fix it", e.getCause());
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new LoadException(LoadException.Reason.CANNOT_MAKE, "class " + className + " could not"
          + " be made (" + e + "); nothing was loaded: make the class and its constructor public",
          e);
    }
    return new AppHost(application);
  }

  private static boolean implementsByName(Class<?> type) {
    for (Class<?> at = type; at != null; at = at.getSuperclass()) {
      for (Class<?> face : at.getInterfaces()) {
        if (face.getName().equals(CryoApplication.class.getName())) {
          return true;
        }
      }
    }
    return false;
  }

  /** The turns, for tests. */
  UserTurns turns() {
    return turns;
  }

  /** The application served. */
  public CryoApplication application() {
    return dispatcher.application();
  }

  /** The routes declared as move routes, each {@code [METHOD, PATH]}, for the presentation. */
  public List<List<String>> moveRoutes() {
    return dispatcher.moveRoutes();
  }

  /**
   * Runs the application's {@link CryoApplication#onStart} in worker {@code worker} with
   * {@code config} and this host's registry of the application's meters: once, before the worker
   * presents itself (so before its first call).
   *
   * @throws LoadException {@link LoadException.Reason#START_FAILED} when the hook threw, its cause
   *     attached: the worker must not serve
   */
  public void start(String worker, Map<String, String> config) {
    try {
      dispatcher.start(dev.cryo.app.AppContext.of(worker, config, meters.registry()));
    } catch (IllegalStateException e) {
      throw new LoadException(LoadException.Reason.START_FAILED, e.getMessage() + "; the worker"
          + " does not serve: fix the cause, or the configuration it reads", e.getCause());
    }
  }

  /**
   * Runs the application's {@link CryoApplication#onStop} once, at the worker's planned quit,
   * after its users were frozen; a throw is logged, never thrown. A second call does nothing.
   */
  public void stop() {
    if (stopped.compareAndSet(false, true)) {
      dispatcher.stop();
    }
  }

  /** The application's own meters as they read now, for the photo. */
  public List<dev.cryo.wire.protocol.AppMeter> appMeters() {
    return meters.read();
  }

  /** The URL prefixes of the application's static files, for the presentation. */
  public List<String> staticPrefixes() {
    return dispatcher.staticResources().prefixes();
  }

  /**
   * Serves a request for a static file ({@link dev.cryo.app.Routes#staticResources}) as the test
   * kit does, for no user: no request slot, no turn, no announcement; see
   * {@link dev.cryo.app.StaticResources}. A path under no static prefix is a {@code 404}.
   *
   * @throws WorkerException {@link RefusalReason#BAD_REQUEST} when the call does not make a
   *     request (a header that is no pair)
   */
  public Response serveStatic(StaticCall call) {
    Request request;
    try {
      request = Request.of(call.method(), call.path(), call.query(), headersOf(call.headers()),
          null);
    } catch (IllegalArgumentException e) {
      throw new WorkerException(RefusalReason.BAD_REQUEST, null, e.getMessage(), e);
    }
    if (!dispatcher.staticResources().covers(request.path())) { // a version without that prefix
      return HostPolicy.error(404, "not_found", "no static file at " + request.path() + ": this"
          + " version of the application serves none there");
    }
    return dispatcher.staticResources().serve(request);
  }

  // ---- calls ----------------------------------------------------------------------------------

  /**
   * Serves one HTTP call of the commander's on {@code worker} (this host's worker), in its user's
   * turn; the wire's call becomes the application's {@link Request} here, once. Returns, or
   * throws, only once every announcement the call caused was delivered.
   *
   * @return the reply: the application's, or {@link HostPolicy}'s (a failed {@code onWake}, state
   *     this version cannot read)
   * @throws WorkerException {@link RefusalReason#BAD_REQUEST} when the call does not make a request
   *     (a header that is no pair, a move without its ends), or a refusal of the worker met while
   *     serving (see the class comment); nothing of the call was served
   */
  public Response serve(Worker worker, HttpCall call) {
    Request request;
    Move move;
    try {
      request = Request.of(call.method(), call.path(), call.query(), headersOf(call.headers()),
          call.body());
      move = moveOf(call.move());
    } catch (IllegalArgumentException e) {
      throw new WorkerException(RefusalReason.BAD_REQUEST, call.user(), e.getMessage(), e);
    }
    Request served = request;
    return Announcer.causedBy(request.header(Call.REQUEST_ID_HEADER), () -> serve(worker,
        Arrival.of(call), served, move, Boolean.TRUE.equals(call.socketless()), call.credential(),
        call.successor()));
  }

  /**
   * Serves {@code request} as {@link #serve(Worker, HttpCall)} does, for a call that arrived as
   * {@code arrival} says — for the worker's own tests, which name a call's page and its clocks.
   */
  Response serve(Worker worker, Arrival arrival, Request request, Move move, boolean socketless) {
    return serve(worker, arrival, request, move, socketless, null, null);
  }

  /**
   * Serves {@code request} as {@link #serve(Worker, Arrival, Request, Move, boolean)} does, for a
   * cookie proving {@code credential} ({@link HttpCall#credential()}) and rotating, at a login or
   * a logout, to {@code successor} ({@link HttpCall#successor()}, null: no rotation).
   *
   * @throws WorkerException {@link RefusalReason#COOKIE_ROTATED} (within the grace) or
   *     {@link RefusalReason#STALE_CREDENTIAL} (after it) when {@code credential} is not the
   *     connection's (a cookie a login or a logout retired): nothing was served
   */
  Response serve(Worker worker, Arrival arrival, Request request, Move move, boolean socketless,
      String credential, String successor) {
    Host host = null;
    Response response;
    try (RequestSlot slot = worker.openRequest(arrival)) {
      boolean again = ConnectionCredentials.check(worker, slot, credential, successor);
      if (HttpCall.CREDENTIAL_PATH.equals(request.path())) {
        return Response.empty(204); // the front's check of a socket's cookie: proven
      }
      host = new Host(worker, slot, null, socketless, credential, successor);
      if (again) {
        host.rotation = HttpCall.ROTATED_LOGIN; // its reply gives the client the login's cookie
      }
      try {
        response = ConnectionCredentials.withoutRotationHeader(serve(host, request, move));
      } catch (RuntimeException failed) {
        host.undoRotation(); // no reply carries the new cookie: the one the client has stays
        throw failed;
      }
    } catch (WorkerException refusal) {
      if (refusal.reason() == RefusalReason.UNREADABLE_PARCEL) {
        return HostPolicy.unreadableParcel(refusal.getMessage());
      }
      throw refusal;
    } finally {
      if (host != null) {
        host.endAfterCall(); // a logout's or a forget's drop, once the call's slot is closed
      }
      worker.awaitAnnouncements(); // the reply, or the refusal, never overtakes what it caused
    }
    if (host.durable) {
      Response notDurable = awaitDurable(worker, host);
      if (notDurable != null) {
        response = notDurable; // it ran: a login's new cookie is the client's all the same
      }
    }
    return host.rotation == null ? response
        : response.withHeader(HttpCall.ROTATED_HEADER, host.rotation);
  }

  /**
   * Opens a request slot for {@code arrival} and runs {@code action} with the call's reach into the
   * worker, outside the user's turn and outside the application; closes the slot and waits for the
   * announcements. For the worker's own tests, which must hold a row's store, open a page of a
   * chosen id or log in from inside a call.
   */
  <T> T inCall(Worker worker, Arrival arrival, Function<Host, T> action) {
    try (RequestSlot slot = worker.openRequest(arrival)) {
      return action.apply(new Host(worker, slot, null, false));
    } finally {
      worker.awaitAnnouncements();
    }
  }

  private Response serve(Host host, Request request, Move move) {
    host.turn = turns.enter(host.user());
    try {
      // Again in the turn: a login or a logout of the connection may have run while this call
      // waited for it, and then the cookie it brought is retired.
      if (ConnectionCredentials.check(host.worker, host.slot, host.proven, host.successor)) {
        host.rotation = HttpCall.ROTATED_LOGIN; // this request's first attempt rotated it
      }
      UserRow row = host.worker.registry().userItems().get(host.user()).orElse(null);
      if (row != null) {
        Dispatcher.Served refused = policy.welcome(row, host);
        if (refused != null) {
          rethrowWorkerRefusal(refused.failure());
          return refused.response();
        }
      }
      Dispatcher.Served served = dispatcher.serve(request, move, host);
      host.durable = host.durable || served.durable(); // a login here made it durable already
      // A refusal of the worker is never the application's to answer, even when an after filter
      // answered its failure otherwise: the call is routed again (or, having written, a 503).
      Throwable failure = host.refusal != null ? host.refusal : served.failure();
      if (failure != null && host.wrote) {
        return interrupted(failure);
      }
      if (failure != null) {
        rethrowWorkerRefusal(failure);
      }
      return served.response();
    } finally {
      turns.exit(host.turn);
    }
  }

  /** The longest a durable call's reply waits for its checkpoint's force. */
  static final Duration DURABLE_WAIT = Duration.ofSeconds(30);

  /**
   * Waits until the checkpoint holding a durable call ({@link dev.cryo.app.Routes#durable}),
   * closed now, is forced to disk: null then; else the {@code 503 not_durable} answered instead
   * of its reply (it ran: what it wrote is kept and served, and written at the next checkpoint).
   */
  private static Response awaitDurable(Worker worker, Host host) {
    Tenant tenant = host.slot.tenant;
    String why;
    Throwable cause;
    try {
      worker.durable(tenant).get(DURABLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      cause = Worker.unwrap(e);
      why = "its checkpoint was not forced to disk";
    } catch (TimeoutException e) {
      cause = e;
      why = "its checkpoint was not forced to disk within " + DURABLE_WAIT.toSeconds() + " s";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cause = e;
      why = "the worker was interrupted while its checkpoint was forced";
    }
    LOG.log(System.Logger.Level.WARNING, "a durable call of '" + tenant.user + "' on worker "
        + worker.name() + " is answered 503 not_durable: " + why + "; what it wrote is kept in"
        + " memory and written at the next checkpoint that succeeds", cause);
    return HostPolicy.error(503, "not_durable", "this request ran, and what it wrote is kept"
        + " and served, but it is not known to be on disk: it is written at the next checkpoint"
        + " that succeeds. Read where you stand before repeating it").withHeader("Retry-After",
        "1");
  }

  /**
   * A refusal of the worker met by a handler that had already written state: the request must not
   * run again (its writes would be applied twice), so it is answered 503 here, never routed again.
   * Anything else is the application's failure, a 500.
   */
  private static Response interrupted(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof WorkerException refusal && refusal.isRetryable()) {
        LOG.log(System.Logger.Level.WARNING, "a call of '" + refusal.user() + "' was interrupted"
            + " after it had written state (" + refusal.reason().code() + "); it is answered 503"
            + " and not run again");
        return HostPolicy.error(503, "interrupted", "this request was"
            + " interrupted after it had changed your state (" + refusal.reason().code()
            + "); what it wrote is kept, nothing was run twice: reload to see where you stand")
            .withHeader("Retry-After", "1");
      }
    }
    return HostPolicy.error(500, "application_failed",
        "the application failed on this request; the failure was logged");
  }

  /** A refusal of the worker is the caller's to handle (route again), not a 500. */
  private static void rethrowWorkerRefusal(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof WorkerException refusal && (refusal.isRetryable()
          || refusal.reason() == RefusalReason.UNKNOWN_CONNECTION)) {
        throw refusal;
      }
    }
  }

  private static List<Map.Entry<String, String>> headersOf(List<List<String>> pairs) {
    List<Map.Entry<String, String>> headers = new ArrayList<>(pairs.size());
    for (List<String> pair : pairs) {
      if (pair == null || pair.size() != 2 || pair.get(0) == null || pair.get(1) == null) {
        throw new IllegalArgumentException("an HTTP call's header is a [name, value] pair, got "
            + pair + "; nothing was served");
      }
      headers.add(Map.entry(pair.get(0), pair.get(1)));
    }
    return headers;
  }

  private static Move moveOf(MoveInfo move) {
    if (move == null) {
      return null;
    }
    if (move.refused() != null) { // a user frozen or new has no worker to leave: from may be null
      return Move.refused(move.from(), move.refused());
    }
    if (move.from() == null || move.to() == null) {
      throw new IllegalArgumentException("a move that was not refused names its origin and its"
          + " destination, got " + move + "; nothing was served");
    }
    return Move.moved(move.from(), move.to());
  }

  // ---- versions -------------------------------------------------------------------------------

  /** The application's {@link CryoApplication#stateVersion()}, stamped on every parcel written. */
  public int stateVersion() {
    return dispatcher.stateVersion();
  }

  /** Whether the application declared login merges ({@link Dispatcher#mergesAtLogin}). */
  boolean mergesAtLogin() {
    return dispatcher.mergesAtLogin();
  }

  /**
   * A store written by another state version, through {@link Dispatcher#upgrade} (and so
   * {@link CryoApplication#upgrade}); asked at a wake or an adoption, on a disk thread with the
   * user's semaphore held, before any row is rebuilt ({@link Parcels#readable}).
   *
   * @param level {@code "user"}, {@code "connection"} or {@code "page"}
   * @throws StateException {@link StateException.Reason#UNREADABLE} when this version cannot read
   *     it: the worker leaves the parcels as they were and refuses the call
   *     {@link RefusalReason#UNREADABLE_PARCEL}
   */
  Map<String, Object> readStore(String level, int version, Map<String, Object> content) {
    Scope scope = switch (level) {
      case "connection" -> Scope.CONNECTION;
      case "page" -> Scope.PAGE;
      default -> Scope.USER;
    };
    return dispatcher.upgrade(scope, version, content);
  }

  // ---- hooks ----------------------------------------------------------------------------------

  /**
   * Before a user leaves by the freezer (an ordered freeze, a transfer, the idle valve, a quit) with
   * none of his calls in flight, before his rows are read for the parcels: runs
   * {@link CryoApplication#onFreeze} under the host policy. Runs on the departing thread with no
   * lock of the worker held; not for an expiry, a login tail, nor a user whose calls a quit cut.
   *
   * @param cause {@code "freeze"} (ordered), {@code "transfer"}, {@code "idle"}, {@code "quit"} or
   *     {@link ParcelHeader#COMMANDER_LOST_CAUSE} (a quit too)
   */
  void beforeFreeze(Worker worker, String user, String cause) {
    UserRow row = worker.registry().userItems().get(user).orElse(null);
    if (row == null) {
      return;
    }
    policy.freeze(row, new StayHost(worker, user), reasonOf(cause)); // a failed freeze: woken again
  }

  /**
   * After pages were closed for good (dropped with their page, connection or user, an expiry
   * included, their drops announced; never by a freeze or a login tail): runs
   * {@link CryoApplication#onPageClosed} for each, in the user's turn, on the dropping thread with
   * no lock of the worker held.
   */
  void pagesClosed(Worker worker, String user, List<String> pageIds) {
    UserTurns.Turn turn = turns.enter(user);
    try {
      StayHost host = new StayHost(worker, user);
      for (String pageId : pageIds) {
        dispatcher.pageClosed(host, pageId);
      }
    } finally {
      turns.exit(turn);
    }
  }

  private static FreezeReason reasonOf(String cause) {
    return switch (cause) {
      case "transfer" -> FreezeReason.TRANSFER;
      case "idle" -> FreezeReason.IDLE;
      case "quit", ParcelHeader.COMMANDER_LOST_CAUSE -> FreezeReason.QUIT;
      default -> FreezeReason.ORDERED;
    };
  }

  // ---- the hosts of the dispatcher ------------------------------------------------------------

  private static Object read(Store store, String key) {
    return store.get(key);
  }

  private static Void write(Store store, String key, Object plain) {
    try {
      if (plain == null) {
        store.remove(key);
      } else {
        store.set(key, plain);
      }
    } catch (StoreException e) {
      throw new StateException(StateException.Reason.NOT_FREEZABLE, key, "the worker's store"
          + " refused state " + key + ": " + e.getMessage(), e);
    }
    return null;
  }

  /**
   * The runtime of one call: the worker, the call's request slot, the user's turn; the call's only
   * reach into the worker's rows. Valid during its call only, on any thread the handler uses.
   */
  final class Host implements CallHost {
    private final Worker worker;
    private final RequestSlot slot;
    /** No page socket was bound when the call was sent: pushes to what is here need no relay. */
    private final boolean socketless;
    UserTurns.Turn turn;
    /** Whether the handler wrote state: after that, the call must not run again. */
    volatile boolean wrote;
    /**
     * Whether the call's reply waits for its checkpoint's force: its route is durable, or it
     * logged its connection into an identity here.
     */
    volatile boolean durable;
    /** The first refusal of the worker this call met (the user left, ...), or null. */
    volatile WorkerException refusal;
    /** The pages this call closed ({@link #closePage}): unknown from then on, its own included. */
    private final java.util.Set<String> closed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The hash of the secret a login or a logout rotates the cookie to; null: no rotation. */
    private final String successor;
    /** What the call did to its cookie ({@link HttpCall#ROTATED_HEADER}'s value), or null. */
    volatile String rotation;
    /** The credential this call's rotation set, and what it replaced ({@link #undoRotation}). */
    private Object rotatedTo;
    private ConnectionCredentials.Held heldBefore;
    /** What is ended once the call's slot is closed: null, "connection" or "user". */
    private volatile String ending;

    /** The credential the call's cookie proved (null: a cookie never rotated). */
    private final String proven;

    Host(Worker worker, RequestSlot slot, UserTurns.Turn turn, boolean socketless) {
      this(worker, slot, turn, socketless, null, null);
    }

    Host(Worker worker, RequestSlot slot, UserTurns.Turn turn, boolean socketless,
        String proven, String successor) {
      this.proven = proven;
      this.worker = worker;
      this.slot = slot;
      this.turn = turn;
      this.socketless = socketless;
      this.successor = successor;
    }

    /** The user the call is served for: the connection's owner, which a login changes. */
    @Override
    public String user() {
      return slot.user();
    }

    @Override
    public String worker() {
      return worker.name();
    }

    @Override
    public boolean isGuest() {
      return user().startsWith(RegisterRegistry.GUEST_PREFIX);
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return on(scope, pageId, store -> AppHost.read(store, key));
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      wrote = true;
      on(scope, pageId, store -> AppHost.write(store, key, plain));
    }

    private <T> T on(Scope scope, String pageId, Function<Store, T> action) {
      try {
        return withStore(scope, pageId, action);
      } catch (WorkerException e) {
        if (e.reason() == RefusalReason.UNKNOWN_PAGE) {
          throw new StateException(StateException.Reason.UNKNOWN_PAGE, null, e.getMessage(), e);
        }
        throw refused(e);
      }
    }

    /** Remembers the first refusal of the worker the call met, and returns it. */
    private WorkerException refused(WorkerException e) {
      if (refusal == null && (e.isRetryable()
          || e.reason() == RefusalReason.UNKNOWN_CONNECTION)) {
        refusal = e;
      }
      return e;
    }

    /**
     * Runs {@code action} on the store of the call's user, connection, or page {@code pageId} (a
     * page of the call's connection; null: the page the call arrived for), holding that row's lock,
     * marked as a store action: no tenant lock may be taken until it returns. Store actions nest
     * upwards only (page, then connection, then user).
     *
     * @throws WorkerException {@link RefusalReason#UNKNOWN_PAGE} when the page is not on this
     *     worker, hangs from another connection, or the call is for no page;
     *     {@link RefusalReason#LOCK_ORDER} when the thread holds the lock of a row above it;
     *     {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} when the
     *     row is no longer here; nothing was read or written
     */
    <T> T withStore(Scope scope, String pageId, Function<Store, T> action) {
      String page = scope != Scope.PAGE ? null : pageId != null ? pageId : slot.pageId();
      if (scope == Scope.PAGE && page == null) {
        throw new WorkerException(RefusalReason.UNKNOWN_PAGE, user(), "the call from"
            + " connection '" + slot.connectionId() + "' is for no page, so it has no page store;"
            + " nothing was read or written: name the page");
      }
      if (scope == Scope.PAGE && closed.contains(page)) {
        throw new WorkerException(RefusalReason.UNKNOWN_PAGE, user(), "page '" + page + "' was"
            + " closed by this call; nothing was read or written");
      }
      if (scope == Scope.PAGE && pageId != null && !pageId.equals(slot.pageId())) {
        PageRow row = worker.registry().pageItems().get(pageId).orElse(null);
        if (row == null || !row.connectionId().equals(slot.connectionId())) {
          throw new WorkerException(RefusalReason.UNKNOWN_PAGE, user(), "page '" + pageId + "' "
              + (row == null ? "is not on worker " + worker.name()
                  : "hangs from another connection than '" + slot.connectionId() + "'")
              + "; nothing was read or written: a call reaches only the pages of its own"
              + " connection");
        }
      }
      return storeAction(scope, page, action);
    }

    private <T> T storeAction(Scope scope, String pageId, Function<Store, T> action) {
      RegisterRegistry registry = worker.registry();
      PageRow page = pageId == null ? null : registry.pageItems().get(pageId).orElse(null);
      ConnectionRow connection = registry.connectionItems().get(slot.connectionId()).orElse(null);
      UserRow user = connection == null ? null
          : registry.userItems().get(connection.user()).orElse(null);
      Row row = switch (scope) {
        case PAGE -> page;
        case CONNECTION -> connection;
        case USER -> user;
      };
      if (row == null) {
        Tenant tenant = slot.tenant;
        WorkerException.Where where = !tenant.present() && tenant.leftTo() != null
            ? tenant.leftTo() : WorkerException.Where.MOVING;
        throw WorkerException.userLeft(user(), where, "the " + scope
            + " row of the call from connection '" + slot.connectionId() + "'"
            + (pageId == null ? "" : " for page '" + pageId + "'") + " is no longer on worker "
            + worker.name() + "; nothing was read or written: the user left (a cut call, a drop)");
      }
      if (scope == Scope.PAGE && !page.connectionId().equals(slot.connectionId())) {
        throw new WorkerException(RefusalReason.UNKNOWN_PAGE, user(), "page '" + pageId
            + "' no longer hangs from connection '" + slot.connectionId() + "'; nothing was read"
            + " or written");
      }
      boolean outOfOrder = switch (scope) {
        case PAGE -> Worker.held(connection) || Worker.held(user);
        case CONNECTION -> Worker.held(user);
        case USER -> false;
      };
      if (outOfOrder) {
        throw new WorkerException(RefusalReason.LOCK_ORDER, user(), "the " + scope
            + " store was asked for while holding the lock of a row above it; nothing was run:"
            + " nest store actions upwards only (page, then connection, then user)");
      }
      row.lock().lock(); // no tenant lock is held here: a handler holds none
      LockOrder.enterStoreAction(); // from here until it returns, no tenant lock may be taken
      try {
        return action.apply(row.get("store", Store.class));
      } finally {
        LockOrder.exitStoreAction();
        row.lock().unlock();
      }
    }

    @Override
    public boolean hasPage(String pageId) {
      return pageId != null && worker.registry().pageItems().get(pageId)
          .map(page -> page.connectionId().equals(slot.connectionId())).orElse(false);
    }

    @Override
    public String openPage() {
      String pageId = "p" + HexFormat.of().formatHex(bytes(16)); // 128 random bits
      newPage(pageId, Map.of());
      return pageId;
    }

    @Override
    public List<String> pages() {
      return worker.registry().connectionItems().get(slot.connectionId())
          .map(connection -> List.copyOf(connection.pages())).orElse(List.of());
    }

    @Override
    public boolean closePage(String pageId) {
      try {
        if (!hasPage(pageId) || !worker.closePage(slot.connectionId(), pageId)) {
          return false;
        }
      } catch (WorkerException e) {
        throw refused(e);
      }
      closed.add(pageId);
      return true;
    }

    /**
     * Opens page {@code pageId} on the call's connection (a child page when {@code fields} name a
     * parent and a root), announced as {@code new_page}; a page of that id already on this
     * connection is left as it is.
     *
     * @throws WorkerException {@link RefusalReason#USER_MISMATCH} when the id is a page of another
     *     connection's (nothing was created); {@link RefusalReason#LOCK_ORDER} from inside a store
     *     action
     */
    void newPage(String pageId, Map<String, Object> fields) {
      worker.newPage(user(), slot.connectionId(), pageId, fields);
      if (!hasPage(pageId)) {
        throw new WorkerException(RefusalReason.USER_MISMATCH, user(), "page '" + pageId
            + "' already hangs from another connection than '" + slot.connectionId()
            + "'; nothing was created: open the page under a fresh id");
      }
    }

    /**
     * Logs the call's connection into {@code user} through the worker ({@link Worker#login}); when
     * the identity lives elsewhere the hand-over waits for this call to close.
     */
    CompletableFuture<LoginOutcome> logIn(String user) {
      return worker.login(slot.connectionId(), user);
    }

    @Override
    public Pushed pushToPage(String pageId, byte[] json) {
      return push(PushMessage.PAGE, pageId, json);
    }

    @Override
    public Pushed pushToConnection(byte[] json) {
      return push(PushMessage.CONNECTION, slot.connectionId(), json);
    }

    @Override
    public Pushed pushToUser(byte[] json) {
      return push(PushMessage.USER, user(), json);
    }

    private Pushed push(String target, String key, byte[] json) {
      if (socketless) {
        Pushed unwritten = unwritten(worker.registry(), target, key);
        if (unwritten != null) {
          return unwritten; // no socket to write to: nothing to relay
        }
      }
      return pusher.push(target, key, json);
    }

    @Override
    public LoginResult login(String user) {
      String before = user();
      refuseEnded("log in");
      LockOrder.refuseInsideStoreAction(user); // before the credential is touched
      if (user.startsWith(RegisterRegistry.GUEST_PREFIX)) {
        throw new IllegalArgumentException("'" + user + "' is a name reserved for guests;"
            + " nothing changed: log in as a real user");
      }
      if (successor != null) {
        rotate(successor, HttpCall.ROTATED_LOGIN); // before a login tail reads the row's parcel
      }
      CompletableFuture<LoginOutcome> outcome;
      try {
        outcome = logIn(user);
      } catch (RegisterException e) {
        undoRotation();
        if (e.reason() == RegisterException.Reason.GUEST_TARGET) {
          throw new IllegalArgumentException("'" + user + "' is a name reserved for guests;"
              + " nothing changed: log in as a real user", e);
        }
        throw e;
      } catch (RuntimeException e) {
        undoRotation();
        throw e;
      }
      if (!outcome.isDone()) {
        return LoginResult.ELSEWHERE; // the hand-over waits for this call to close
      }
      try {
        outcome.join();
      } catch (CompletionException e) {
        undoRotation(); // the login did not happen: the cookie stays as it was
        Throwable cause = Worker.unwrap(e);
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw e;
      }
      String after = user();
      if (!after.equals(before) && turn != null) { // the call goes on in the identity's turn
        turns.exit(turn);
        turn = turns.enter(after);
      }
      // The connection, its pages and what durable calls wrote on them now live in the
      // identity, and the guest's checkpoint that held them is dropped: the login's reply waits
      // for the identity's checkpoint holding them, forced, as a durable call's does.
      durable = true;
      return LoginResult.HERE;
    }

    @Override
    public void logout() {
      refuseEnded("log out");
      LockOrder.refuseInsideStoreAction(user());
      rotate(ConnectionCredentials.retired(), HttpCall.ROTATED_ENDED); // no cookie reaches it now
      ending = "connection";
    }

    @Override
    public void forget() {
      refuseEnded("forget the user");
      LockOrder.refuseInsideStoreAction(user());
      rotate(ConnectionCredentials.retired(), HttpCall.ROTATED_ENDED);
      ending = "user";
    }

    private void refuseEnded(String what) {
      if (ending != null) {
        throw new IllegalStateException("this call already " + (ending.equals("user")
            ? "forgot its user" : "logged its connection out") + "; it cannot " + what
            + " too: nothing changed");
      }
    }

    /**
     * After the call's slot closed: drops what a logout (the connection, its pages; the user
     * stays, unless a guest's last connection) or a forget (the user, every connection and page of
     * his) ended, announced. A failure is logged: the cookie is retired either way.
     */
    void endAfterCall() {
      String what = ending;
      if (what == null) {
        return;
      }
      try {
        if (what.equals("user")) {
          worker.forgetUser(user());
        } else {
          worker.logOut(slot.connectionId());
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "the " + (what.equals("user") ? "forget of '"
            + user() + "'" : "logout of connection '" + slot.connectionId() + "'") + " could"
            + " not drop its rows (" + e.getMessage() + "); its cookie is retired, so nothing"
            + " reaches them: they go with the user's expiry", e);
      }
    }

    /**
     * Makes {@code value} the connection's credential, the cookie before it retired now, and the
     * reply say {@code what} ({@link HttpCall#ROTATED_HEADER}), keeping what it replaces for
     * {@link #undoRotation}. Once per call: a second rotation keeps the first one's "before".
     */
    private void rotate(Object value, String what) {
      if (rotation == null) {
        heldBefore = ConnectionCredentials.held(worker, slot.connectionId());
      }
      rotatedTo = value;
      ConnectionCredentials.set(worker, slot.connectionId(),
          new ConnectionCredentials.Held(value, worker.clock().millis()));
      rotation = what;
    }

    /**
     * Undoes this call's rotation when no reply will carry it (the login failed, or the call was
     * refused or failed after it): the connection, if it is still here and still holds the
     * credential this call set, gets back the one before, so the cookie the client has keeps
     * reaching it. A connection a login tail already handed over carries the new one; a failure
     * there is the hand-over's to report.
     */
    void undoRotation() {
      if (rotation == null) {
        return;
      }
      ConnectionCredentials.restore(worker, slot.connectionId(), rotatedTo, heldBefore);
      rotation = null;
      ending = null;
    }

  }

  /**
   * What a push to {@code target} {@code key} reaches when no socket is bound: the pages it names,
   * as this worker's registry says, none written; null when the target is not (wholly) here, so
   * that only the commander's maps can name its pages.
   */
  static Pushed unwritten(RegisterRegistry registry, String target, String key) {
    switch (target) {
      case PushMessage.PAGE -> {
        return registry.pageItems().contains(key) ? new Pushed(1, 0) : null;
      }
      case PushMessage.CONNECTION -> {
        return registry.connectionItems().get(key)
            .map(connection -> new Pushed(connection.pages().size(), 0)).orElse(null);
      }
      default -> {
        UserRow row = registry.userItems().get(key).orElse(null);
        if (row == null) {
          return null;
        }
        int pages = 0;
        for (String connection : row.connections()) {
          var held = registry.connectionItems().get(connection);
          if (held.isEmpty()) {
            return null;
          }
          pages += held.get().pages().size();
        }
        return new Pushed(pages, 0);
      }
    }
  }

  private byte[] bytes(int count) {
    byte[] out = new byte[count];
    random.nextBytes(out);
    return out;
  }

  /** A hook's reach: the user's store, through the worker's registry, under its row lock. */
  private record StayHost(Worker host, String user) implements StateHost {
    @Override
    public String worker() {
      return host.name();
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return on(scope, store -> AppHost.read(store, key));
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      on(scope, store -> AppHost.write(store, key, plain));
    }

    private <T> T on(Scope scope, Function<Store, T> action) {
      if (scope != Scope.USER) {
        throw new StateException(StateException.Reason.GONE, "a hook reaches the user's state"
            + " only; nothing was read or written");
      }
      UserRow row = host.registry().userItems().get(user).orElseThrow(() -> new StateException(
          StateException.Reason.GONE, "'" + user + "' is no longer on worker " + host.name()
              + "; nothing was read or written"));
      row.lock().lock();
      try {
        return action.apply(row.get("store", Store.class));
      } finally {
        row.lock().unlock();
      }
    }
  }

  /** Why an application could not be loaded; {@link #reason()} is machine-readable. */
  public static final class LoadException extends RuntimeException {

    /** What was wrong; {@link #code()} is the stable spelling. */
    public enum Reason {
      /** No such class on the classpath or in the jar. */
      NOT_FOUND,
      /** The class is not a {@link CryoApplication}. */
      NOT_AN_APPLICATION,
      /** The class could not be made: abstract, no public no-argument constructor, it threw. */
      CANNOT_MAKE,
      /** The jar is missing, unreadable or not a jar. */
      BAD_JAR,
      /** Declaring its routes failed. */
      BAD_ROUTES,
      /** Its {@link CryoApplication#onStart} threw. */
      START_FAILED;

      /** The reason in {@code snake_case}. */
      public String code() {
        return name().toLowerCase(Locale.ROOT);
      }
    }

    private final Reason reason;

    LoadException(Reason reason, String message, Throwable cause) {
      super(message, cause);
      this.reason = reason;
    }

    LoadException(Reason reason, String message) {
      this(reason, message, null);
    }

    /** The machine-readable reason. */
    public Reason reason() {
      return reason;
    }
  }
}
