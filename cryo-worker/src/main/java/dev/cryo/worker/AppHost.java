package dev.cryo.worker;

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
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Store;
import dev.cryo.register.StoreException;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.MoveInfo;
import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.RefusalReason;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
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
 * <p>{@link #serve} takes the wire's {@link HttpCall} and makes the application's {@link Request}
 * of it once: the call opens a request slot on the worker for its user and connection under the
 * commander's grant (no page: it stamps the connection's and the user's clocks as a human event),
 * and the request goes to the application's routes. With {@code socketless} (the commander's word
 * that no page socket was bound anywhere when it sent the call), a push of the call to a page,
 * connection or user this worker holds is answered here — its pages counted from the worker's
 * registry, none written — instead of being relayed; any other push is relayed. The application's
 * own failures are a {@code 500} with a generic body (logged), never a throw. A refusal of the
 * worker met while serving (the user left, the worker finished, the identity could not be located)
 * is thrown as that {@link WorkerException}, for the commander to route again; state this version
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
 * {@link dev.cryo.app.StateKey}, else its simple name. So the freezer carries it with its row, a
 * guest's user store follows him into his first identity, and {@code cryo freezer} shows it.
 *
 * <h2>Hooks</h2>
 *
 * <p>As {@link HostPolicy} says, a stay being the user's row here (a row that comes back from the
 * freezer is a new object): {@link CryoApplication#onWake} runs in the user's turn before his
 * first call served since his row arrived (born, woken, adopted); {@link CryoApplication#onFreeze}
 * from the worker's {@link Application#beforeFreeze}; {@link CryoApplication#onPageClosed} from
 * {@link Application#pagesClosed}, in the user's turn.
 *
 * <p>Thread-safe.
 */
public final class AppHost implements Application {

  private static final System.Logger LOG = System.getLogger(AppHost.class.getName());

  private final Dispatcher dispatcher;
  private final HostPolicy policy;
  private final UserTurns turns = new UserTurns();
  private final SecureRandom random = new SecureRandom();
  private volatile Pusher pusher = Pusher.NOWHERE;

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
   * {@code className}, from the worker's classpath, or from {@code jarOrNull} first consulting the
   * classpath (a class on both is the classpath's); makes one instance with its public no-argument
   * constructor and asks it for its routes.
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
        URL url = jarOrNull.toUri().toURL();
        loader = new URLClassLoader("cryo-app " + jarOrNull.getFileName(), new URL[] {url},
            loader);
      } catch (IOException e) {
        throw new LoadException(LoadException.Reason.BAD_JAR, "the application's jar " + jarOrNull
            + " cannot be opened (" + e.getMessage() + "); nothing was loaded", e);
      }
    }
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

  // ---- calls ----------------------------------------------------------------------------------

  /**
   * Serves one HTTP call of the commander's on {@code worker} (this host's worker), in its user's
   * turn; the wire's call becomes the application's {@link Request} here, once. Returns only once
   * every announcement the call caused was delivered, as {@link Worker#call} does.
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
    dev.cryo.worker.Call admission = new dev.cryo.worker.Call(call.user(), call.connection(), null,
        CallKind.USER_EVENT, call.grant(), "", Map.of(), Map.of());
    try (RequestSlot slot = worker.openRequest(admission)) {
      return serve(new CallContext(worker, slot), request, move,
          Boolean.TRUE.equals(call.socketless()));
    } catch (WorkerException refusal) {
      if (refusal.reason() == RefusalReason.UNREADABLE_PARCEL) {
        return HostPolicy.unreadableParcel(refusal.getMessage());
      }
      throw refusal;
    } finally {
      worker.awaitAnnouncements(); // the reply, or the refusal, never overtakes what it caused
    }
  }

  /**
   * Not a way in: this host serves the commander's HTTP calls through
   * {@link #serve(Worker, HttpCall)}.
   *
   * @throws UnsupportedOperationException always; nothing was served
   */
  @Override
  public Object handle(CallContext context) {
    throw new UnsupportedOperationException("an application host serves HTTP calls through"
        + " serve(worker, httpCall), not worker calls; nothing was served");
  }

  private Response serve(CallContext context, Request request, Move move, boolean socketless) {
    Host host = new Host(context, turns.enter(context.user()), socketless);
    try {
      UserRow row = userRow(context);
      if (row != null) {
        Dispatcher.Served refused = policy.welcome(row, host);
        if (refused != null) {
          rethrowWorkerRefusal(refused.failure());
          return refused.response();
        }
      }
      Dispatcher.Served served = dispatcher.serve(request, move, host);
      if (served.failure() != null && host.wrote) {
        return interrupted(served.failure());
      }
      if (served.failure() != null) {
        rethrowWorkerRefusal(served.failure());
      }
      return served.response();
    } finally {
      turns.exit(host.turn);
    }
  }

  private static UserRow userRow(CallContext context) {
    return context.worker().registry().userItems().get(context.user()).orElse(null);
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
        return Response.json(503, Map.of("error", "interrupted", "message", "this request was"
            + " interrupted after it had changed your state (" + refusal.reason().code()
            + "); what it wrote is kept, nothing was run twice: reload to see where you stand"))
            .withHeader("Retry-After", "1");
      }
    }
    return Response.json(500, Map.of("error", "application_failed", "message",
        "the application failed on this request; the failure was logged"));
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

  /** The application's {@link CryoApplication#stateVersion()}. */
  @Override
  public int stateVersion() {
    return dispatcher.stateVersion();
  }

  /**
   * A store written by another state version, through {@link Dispatcher#upgrade} (and so
   * {@link CryoApplication#upgrade}).
   *
   * @throws StateException {@link StateException.Reason#UNREADABLE} when this version cannot read
   *     it
   */
  @Override
  public Map<String, Object> readStore(String level, int version, Map<String, Object> content) {
    Scope scope = switch (level) {
      case "connection" -> Scope.CONNECTION;
      case "page" -> Scope.PAGE;
      default -> Scope.USER;
    };
    return dispatcher.upgrade(scope, version, content);
  }

  // ---- hooks ----------------------------------------------------------------------------------

  @Override
  public void beforeFreeze(Worker worker, String user, String cause) {
    UserRow row = worker.registry().userItems().get(user).orElse(null);
    if (row == null) {
      return;
    }
    policy.freeze(row, new StayHost(worker, user), reasonOf(cause)); // a failed freeze: woken again
  }

  @Override
  public void pagesClosed(Worker worker, String user, List<String> pageIds) {
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
      case "quit" -> FreezeReason.QUIT;
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

  /** The runtime of one call: the worker's call context, and the user's turn. */
  private final class Host implements CallHost {
    private final CallContext context;
    /** No page socket was bound when the call was sent: pushes to what is here need no relay. */
    private final boolean socketless;
    UserTurns.Turn turn;
    /** Whether the handler wrote state: after that, the call must not run again. */
    volatile boolean wrote;

    Host(CallContext context, UserTurns.Turn turn, boolean socketless) {
      this.context = context;
      this.turn = turn;
      this.socketless = socketless;
    }

    @Override
    public String user() {
      return context.user();
    }

    @Override
    public String worker() {
      return context.workerName();
    }

    @Override
    public boolean isGuest() {
      return context.user().startsWith(RegisterRegistry.GUEST_PREFIX);
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
        return switch (scope) {
          case USER -> context.withUserStore(action);
          case CONNECTION -> context.withConnectionStore(action);
          case PAGE -> context.withPageStore(pageId, action);
        };
      } catch (WorkerException e) {
        if (e.reason() == RefusalReason.UNKNOWN_PAGE) {
          throw new StateException(StateException.Reason.UNKNOWN_PAGE, null, e.getMessage(), e);
        }
        throw e;
      }
    }

    @Override
    public boolean hasPage(String pageId) {
      return context.hasPage(pageId);
    }

    @Override
    public String openPage() {
      String pageId = "p" + HexFormat.of().formatHex(bytes(16)); // 128 random bits
      context.newPage(pageId, Map.of());
      return pageId;
    }

    @Override
    public Pushed pushToPage(String pageId, byte[] json) {
      return push(PushMessage.PAGE, pageId, json);
    }

    @Override
    public Pushed pushToConnection(byte[] json) {
      return push(PushMessage.CONNECTION, context.connectionId(), json);
    }

    @Override
    public Pushed pushToUser(byte[] json) {
      return push(PushMessage.USER, context.user(), json);
    }

    private Pushed push(String target, String key, byte[] json) {
      if (socketless) {
        Pushed unwritten = unwritten(context.worker().registry(), target, key);
        if (unwritten != null) {
          return unwritten; // no socket to write to: nothing to relay
        }
      }
      return pusher.push(target, key, json);
    }

    @Override
    public LoginResult login(String user) {
      String before = context.user();
      CompletableFuture<LoginOutcome> outcome;
      try {
        outcome = context.login(user);
      } catch (RegisterException e) {
        if (e.reason() == RegisterException.Reason.GUEST_TARGET) {
          throw new IllegalArgumentException("'" + user + "' is a name reserved for guests;"
              + " nothing changed: log in as a real user", e);
        }
        throw e;
      }
      if (!outcome.isDone()) {
        return LoginResult.ELSEWHERE; // the hand-over waits for this call to close
      }
      try {
        outcome.join();
      } catch (CompletionException e) {
        Throwable cause = Worker.unwrap(e);
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw e;
      }
      String after = context.user();
      if (!after.equals(before)) { // the call goes on in the identity's turn
        turns.exit(turn);
        turn = turns.enter(after);
      }
      return LoginResult.HERE;
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
      BAD_ROUTES;

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
