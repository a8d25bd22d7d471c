package dev.cryo.worker;

import dev.cryo.app.CallHost;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Dispatcher;
import dev.cryo.app.FreezeReason;
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
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The worker's {@link Application} over a {@link CryoApplication}: serves HTTP calls through the
 * application's routes, keeps its typed state in the worker's stores, runs its hooks.
 *
 * <pre>{@code
 * AppHost host = AppHost.load("dev.cryo.demo.DemoApplication", null);
 * Worker worker = Worker.builder("w1", freezer).application(host).build();
 * HttpReply reply = (HttpReply) worker.call(new Call(null, "c1", null, CallKind.USER_EVENT, false,
 *     "http", Map.of("method", "POST", "path", "/api/pages", "query", "", "headers", List.of(),
 *     "body", new byte[0]), null));
 * }</pre>
 *
 * <h2>The call</h2>
 *
 * <p>An HTTP request is a worker {@link Call} of kind {@link CallKind#USER_EVENT}, operation
 * {@code "http"}, no page, and arguments {@code {method, path, query, headers: [[name, value], …],
 * body: byte[], move: null | {from, to, refused}, socketless: true (optional)}}. With
 * {@code socketless} (the commander's word that no page socket was bound anywhere when it sent the
 * call), a push of the call to a page, connection or user this worker holds is answered here —
 * its pages counted from the worker's registry, none written — instead of being relayed; any other
 * push is relayed. {@link #handle} returns an {@link HttpReply};
 * the application's own failures are a {@code 500} with a generic body (logged), never a throw. A
 * refusal of the worker met while serving (the user left, the worker finished, the identity could
 * not be located) is thrown as that {@link WorkerException}, for the caller to route again.
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
 * <p>{@link CryoApplication#onWake} runs in the user's turn before his first call served here since
 * his row arrived (born, woken, adopted); {@link CryoApplication#onFreeze} from the worker's
 * {@link Application#beforeFreeze}; {@link CryoApplication#onPageClosed} from
 * {@link Application#pagesClosed}, in the user's turn.
 *
 * <p>Thread-safe.
 */
public final class AppHost implements Application {

  private static final System.Logger LOG = System.getLogger(AppHost.class.getName());

  /** The operation of an HTTP call. */
  public static final String HTTP = "http";

  /** The argument of an HTTP call saying that no page socket was bound when it was sent. */
  public static final String SOCKETLESS = "socketless";

  private final Dispatcher dispatcher;
  private final UserTurns turns = new UserTurns();
  /** The user rows whose onWake ran; a row that comes back from the freezer is a new object. */
  private final Set<UserRow> welcomed = Collections.synchronizedSet(
      Collections.newSetFromMap(new WeakHashMap<>()));
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
   * Serves one HTTP call in its user's turn.
   *
   * @return an {@link HttpReply}
   * @throws IllegalArgumentException when the call is not an HTTP call of the shape above
   * @throws WorkerException a refusal of the worker met while serving (see the class comment)
   */
  @Override
  public HttpReply handle(CallContext context) {
    dev.cryo.worker.Call call = context.call();
    if (!HTTP.equals(call.operation())) {
      throw new IllegalArgumentException("an application host serves operation '" + HTTP
          + "' only, got '" + call.operation() + "'; nothing was served");
    }
    Request request = requestOf(call.arguments());
    Move move = moveOf(call.arguments().get("move"));
    Host host = new Host(context, turns.enter(context.user()),
        Boolean.TRUE.equals(call.arguments().get(SOCKETLESS)));
    try {
      UserRow row = userRow(context);
      if (row != null && !welcomed.contains(row)) {
        Throwable failure = dispatcher.wake(host);
        if (failure != null) {
          rethrowWorkerRefusal(failure);
          return replyOf(Response.json(500, Map.of("error", "application_failed", "message",
              "the application failed to wake this user; the failure was logged")));
        }
        welcomed.add(row);
      }
      Dispatcher.Served served = dispatcher.serve(request, move, host);
      if (served.failure() != null && host.wrote) {
        return interrupted(served.failure());
      }
      if (served.failure() != null) {
        rethrowWorkerRefusal(served.failure());
      }
      return replyOf(served.response());
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
  private static HttpReply interrupted(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof WorkerException refusal && refusal.isRetryable()) {
        LOG.log(System.Logger.Level.WARNING, "a call of '" + refusal.user() + "' was interrupted"
            + " after it had written state (" + refusal.reason().code() + "); it is answered 503"
            + " and not run again");
        return new HttpReply(503, List.of(List.of("Content-Type", Response.JSON),
            List.of("Retry-After", "1")), ("{\"error\":\"interrupted\",\"message\":\"this"
            + " request was interrupted after it had changed your state ("
            + refusal.reason().code() + "); what it wrote is kept, nothing was run twice: reload"
            + " to see where you stand\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return replyOf(Response.json(500, Map.of("error", "application_failed", "message",
        "the application failed on this request; the failure was logged")));
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

  private static HttpReply replyOf(Response response) {
    List<List<String>> headers = new ArrayList<>();
    for (Map.Entry<String, String> header : response.headers()) {
      headers.add(List.of(header.getKey(), header.getValue()));
    }
    return new HttpReply(response.status(), headers, response.body());
  }

  private static Request requestOf(Map<String, Object> arguments) {
    String method = text(arguments, "method", true);
    String path = text(arguments, "path", true);
    String query = text(arguments, "query", false);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    Object rawHeaders = arguments.get("headers");
    if (rawHeaders != null) {
      if (!(rawHeaders instanceof List<?> list)) {
        throw badArgument("headers", "a list of [name, value] pairs", rawHeaders);
      }
      for (Object pair : list) {
        if (!(pair instanceof List<?> header) || header.size() != 2
            || !(header.get(0) instanceof String name) || !(header.get(1) instanceof String value)) {
          throw badArgument("headers", "a list of [name, value] pairs", pair);
        }
        headers.add(Map.entry(name, value));
      }
    }
    Object body = arguments.get("body");
    if (body != null && !(body instanceof byte[])) {
      throw badArgument("body", "bytes", body);
    }
    return Request.of(method, path, query, headers, (byte[]) body);
  }

  private static String text(Map<String, Object> arguments, String name, boolean required) {
    Object value = arguments.get(name);
    if (value == null && !required) {
      return null;
    }
    if (!(value instanceof String text) || (required && text.isEmpty())) {
      throw badArgument(name, "a string", value);
    }
    return text;
  }

  private static Move moveOf(Object raw) {
    if (raw == null) {
      return null;
    }
    if (!(raw instanceof Map<?, ?> move)) {
      throw badArgument("move", "null or {from, to, refused}", raw);
    }
    Object refused = move.get("refused");
    if (refused != null) { // a user frozen or new has no worker to leave: from may be null
      return Move.refused(move.get("from") instanceof String from ? from : null,
          String.valueOf(refused));
    }
    if (!(move.get("from") instanceof String from)) {
      throw badArgument("move", "{from, to, refused} with an origin", raw);
    }
    if (!(move.get("to") instanceof String to)) {
      throw badArgument("move", "{from, to, refused} with a destination", raw);
    }
    return Move.moved(from, to);
  }

  private static IllegalArgumentException badArgument(String name, String expected, Object got) {
    return new IllegalArgumentException("the HTTP call's argument '" + name + "' must be "
        + expected + ", got " + (got == null ? "nothing" : got.getClass().getSimpleName())
        + "; nothing was served");
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
    welcomed.remove(row); // if the freeze fails he stays, and onWake runs again
    dispatcher.freeze(new StayHost(worker, user), reasonOf(cause));
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
