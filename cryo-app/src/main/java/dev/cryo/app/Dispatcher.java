package dev.cryo.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For hosts: serves an application's calls and runs its hooks over a host's plain data. One
 * dispatcher per instance of the application; a host (the worker's application host, the test
 * kit) makes it with {@link #of}, then calls {@link #serve} once per request and the hooks when the
 * user's stay changes. Applications never see it.
 *
 * <p>What the dispatcher decides: the route ({@code 404}, {@code 405}), the request body
 * ({@code 400}), the reply (a {@link Response}, {@code 204} for null, JSON otherwise), refusals
 * ({@link Refusal}: its status; {@link StateException.Reason#UNKNOWN_PAGE}: {@code 404}), and the
 * application's failures ({@code 500} with a generic body, logged through {@link System.Logger} and
 * returned in {@link Served#failure()}). What the host decides: where state lives, the turn of each
 * user (the dispatcher assumes one call at a time per user), and when the hooks run.
 *
 * <p>Wherever it runs application code — the routes' declaration, a handler, a hook, an upgrade —
 * the thread's context class loader is the application's class loader, put back after.
 *
 * <p>Thread-safe: calls of different users may be served at once.
 */
public final class Dispatcher {

  private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

  /**
   * The outcome of one call: the reply, the application's failure behind a 500 (or null), and
   * whether the route is durable ({@link Routes#durable}: the host sends the reply only once the
   * call's writes are on disk).
   */
  public record Served(Response response, Throwable failure, boolean durable) {

    /** A reply of no durable route. */
    public Served(Response response, Throwable failure) {
      this(response, failure, false);
    }
  }

  private final CryoApplication application;
  private final Routes routes;
  private final int stateVersion;
  private final ConcurrentHashMap<String, Class<?>> keys = new ConcurrentHashMap<>();
  private final StaticResources statics;

  private Dispatcher(CryoApplication application, Routes routes, int stateVersion) {
    this.application = application;
    this.routes = routes;
    this.stateVersion = stateVersion;
    ClassLoader loader = application.getClass().getClassLoader();
    this.statics = new StaticResources(routes.mounts(),
        loader != null ? loader : ClassLoader.getSystemClassLoader());
  }

  /**
   * The application's static resources ({@link Routes#staticResources}): a host serves a request
   * they {@link StaticResources#covers cover} there, without a user, before anything else.
   */
  public StaticResources staticResources() {
    return statics;
  }

  /**
   * A dispatcher for {@code application}: asks it for its routes, once.
   *
   * @throws IllegalArgumentException when declaring the routes failed (the message says which)
   */
  public static Dispatcher of(CryoApplication application) {
    Objects.requireNonNull(application, "application");
    Routes routes = new Routes();
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      application.routes(routes);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("application " + application.getClass().getName()
          + " failed to declare its routes: " + e.getMessage(), e);
    }
    routes.seal();
    int stateVersion;
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      stateVersion = application.stateVersion();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("application " + application.getClass().getName()
          + " failed to say its state version: " + e, e);
    }
    if (stateVersion < 1) {
      throw new IllegalArgumentException("application " + application.getClass().getName()
          + " declares state version " + stateVersion + "; a state version is 1 or more");
    }
    return new Dispatcher(application, routes, stateVersion);
  }

  /**
   * The key of an identity's user store under which guests' user stores wait for the application's
   * login merges ({@link Routes#mergeAtLogin}): a list of stores, oldest first. No state is stored
   * under it.
   */
  public static final String MERGING_GUESTS = "@merging_guests";

  /**
   * Whether the application declared login merges: only then does a host keep a guest's user state
   * for an identity that exists ({@link #withMergingGuest}); else it is dropped.
   */
  public boolean mergesAtLogin() {
    return routes.merges().any();
  }

  /**
   * For a host handing a guest's user state to an identity that exists: the value to store under
   * {@link #MERGING_GUESTS} in the identity's user store, {@code waiting} (what is stored there, or
   * null) with {@code guestStore} (the guest's user store, plain data) appended. The merges run in
   * the identity's turn: right after a login {@link LoginResult#HERE}, else at his next call.
   */
  public static List<Object> withMergingGuest(Object waiting, Map<String, Object> guestStore) {
    return LoginMerges.appended(waiting, Objects.requireNonNull(guestStore, "guestStore"));
  }

  /**
   * Runs {@link CryoApplication#onStart} with {@code context}, the application's class loader as
   * the thread's context class loader. Hosts call it once, before the first call.
   *
   * @throws IllegalStateException when the hook threw (its cause), saying so: the host must not
   *     serve this instance
   */
  public void start(AppContext context) {
    Objects.requireNonNull(context, "context");
    try (ContextClassLoader loader = ContextClassLoader.of(application)) {
      application.onStart(context);
    } catch (Exception | LinkageError e) {
      throw new IllegalStateException("the application " + application.getClass().getName()
          + " failed to start in " + context.worker() + ": its onStart threw " + e, e);
    }
  }

  /**
   * Runs {@link CryoApplication#onStop}, the application's class loader as the thread's context
   * class loader; a throw is logged, never thrown.
   *
   * @return the hook's failure, or null
   */
  public Throwable stop() {
    try (ContextClassLoader loader = ContextClassLoader.of(application)) {
      application.onStop();
      return null;
    } catch (Exception | LinkageError e) {
      System.getLogger(Dispatcher.class.getName()).log(System.Logger.Level.WARNING,
          "the application " + application.getClass().getName() + " failed in onStop", e);
      return e;
    }
  }

  /** The application's {@link CryoApplication#stateVersion()}, read once. */
  public int stateVersion() {
    return stateVersion;
  }

  /**
   * The content of one store (a user's, a connection's or a page's: state keys to plain data)
   * written by state version {@code version}, as this application reads it: unchanged for its own
   * version, each value passed through {@link CryoApplication#upgrade} for an older one. Nothing is
   * changed in {@code store}. Runs on the caller's thread; for a host waking a user, before his
   * rows exist.
   *
   * @param scope whose store it is
   * @param version the state version stamped on the parcel it came from ({@code 1} when none)
   * @param store the store's content, plain data as the host keeps it
   * @return the content to rebuild the store with: plain data, fresh containers
   * @throws StateException {@link StateException.Reason#UNREADABLE} when this version cannot read
   *     it — a version newer than this application's or below 1, an upgrade that threw or returned
   *     what cannot be frozen — naming the key; the message says what happened, that nothing was
   *     changed, and what to do
   */
  public Map<String, Object> upgrade(Scope scope, int version, Map<String, Object> store) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(store, "store");
    if (version == stateVersion) {
      return store;
    }
    String running = application.getClass().getName() + " (state version " + stateVersion + ")";
    if (version > stateVersion || version < 1) {
      throw new StateException(StateException.Reason.UNREADABLE, null, "this state was written"
          + " by state version " + version + (version > stateVersion ? ", newer than the running "
          + running : ", which no application writes (the running one is " + running + ")")
          + "; nothing was read or changed: run a version that reads state version " + version);
    }
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      return upgrade(scope, version, store, running);
    }
  }

  private Map<String, Object> upgrade(Scope scope, int version, Map<String, Object> store,
      String running) {
    Map<String, Object> upgraded = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, Object> entry : store.entrySet()) {
      String key = entry.getKey();
      if (TypedState.isWriterEntry(key)) {
        upgraded.put(key, entry.getValue()); // the class that wrote a state, not a state
        continue;
      }
      if (key.equals(MERGING_GUESTS) && entry.getValue() instanceof List<?> guests) {
        List<Object> each = new ArrayList<>(); // guests' user stores waiting for a login merge
        for (Object guest : guests) {
          Map<String, Object> guestStore = new java.util.LinkedHashMap<>();
          if (guest instanceof Map<?, ?> map) {
            map.forEach((name, value) -> guestStore.put((String) name, value));
          }
          each.add(upgrade(Scope.USER, version, guestStore, running));
        }
        upgraded.put(key, each);
        continue;
      }
      Object result;
      try {
        result = application.upgrade(new StoredState(scope, key, version,
            PlainData.unescaped(entry.getValue())));
      } catch (Exception e) {
        throw new StateException(StateException.Reason.UNREADABLE, key, "the upgrade of "
            + scope.name().toLowerCase(java.util.Locale.ROOT) + " state " + key + " from state"
            + " version " + version + " to " + running + " failed: " + e + "; nothing was read or"
            + " changed: fix the application's upgrade, or run a version that reads it", e);
      }
      if (result == null) {
        continue;
      }
      try {
        upgraded.put(key, PlainData.thaw(result instanceof Map<?, ?>
            || result instanceof java.util.List<?> ? PlainData.toPlain(result, key)
            : PlainData.write(result, result.getClass())));
      } catch (StateException e) {
        throw new StateException(StateException.Reason.UNREADABLE, e.field(), "the upgrade of "
            + scope.name().toLowerCase(java.util.Locale.ROOT) + " state " + key + " from state"
            + " version " + version + " returned what cannot be frozen (" + e.getMessage()
            + "); nothing was read or changed: return a record of the running version, or plain"
            + " data", e);
      }
    }
    return upgraded;
  }

  /** The application served. */
  public CryoApplication application() {
    return application;
  }

  /** The move routes ({@link Routes#move}), as {@code [METHOD, PATH]} pairs. */
  public List<List<String>> moveRoutes() {
    return routes.moves();
  }

  /** Whether {@code method path} is a move route. */
  public boolean isMoveRoute(String method, String path) {
    Routes.Found found = routes.find(method.toUpperCase(java.util.Locale.ROOT), path,
        new ArrayList<>());
    return found != null && found.route().move();
  }

  // ---- calls ----------------------------------------------------------------------------------

  /**
   * Serves one request in its user's turn (the host holds it).
   *
   * @param request the request
   * @param move for a move route, how the move went; null when nobody performed one (the handler
   *     then receives {@link Move#refused} with {@link Move#NOT_PERFORMED})
   * @param host the runtime for this call
   * @return the reply, and the failure behind a 500; never throws for the application's errors
   */
  public Served serve(Request request, Move move, CallHost host) {
    List<String> allowed = new ArrayList<>();
    Routes.Found found = routes.find(request.method(), request.path(), allowed);
    if (found == null) {
      if (allowed.isEmpty()) {
        return new Served(error(404, "not_found", "no route serves " + request.method() + " "
            + request.path()), null);
      }
      return new Served(error(405, "method_not_allowed", request.path() + " is served for "
          + String.join(", ", allowed) + ", not " + request.method())
          .withHeader("Allow", String.join(", ", allowed)), null);
    }
    Routes.Route route = found.route();
    DispatchedCall call = new DispatchedCall(this, host, request, route, found.parameters());
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      Outcome outcome = null;
      if (routes.merges().any()) { // guests' state waiting for this identity, from a login
        outcome = step(request, route, "a login merge", () -> {
          routes.merges().apply(this, host);
          return null;
        });
      }
      List<BeforeFilter> befores = outcome != null && outcome.answered() ? List.of()
          : routes.befores();
      for (int i = 0; i < befores.size(); i++) {
        BeforeFilter filter = befores.get(i);
        outcome = step(request, route, "before filter " + (i + 1), () -> filter.before(call));
        if (outcome.answered()) {
          break;
        }
      }
      if (outcome == null || !outcome.answered()) {
        outcome = step(request, route, "the handler",
            () -> handle(request, move, host, route, call));
        if (!outcome.answered()) {
          outcome = new Outcome(Response.empty(204), null, "", true); // a handler's null
        }
      }
      List<AfterFilter> afters = routes.afters();
      for (int i = 0; i < afters.size(); i++) {
        AfterFilter filter = afters.get(i);
        Outcome before = outcome;
        Outcome after = step(request, route, "after filter " + (i + 1), () -> {
          Response next = filter.after(call, before.response(), before.failure());
          if (next == null) {
            throw new IllegalStateException("an after filter of route " + route.method() + " "
                + route.pattern() + " returned null; it returns the reply to send (the one it"
                + " was given to keep it)");
          }
          return next;
        });
        outcome = after.failure() != null || after.response().status() == 500
            ? new Outcome(after.response(), after.failure() != null ? after.failure()
                : before.failure(), after.failure() != null ? after.stage() : before.stage(),
                true)
            : after; // another answer than a 500 handles the failure
      }
      Response response = outcome.response();
      if (request.method().equals("HEAD")) {
        response = headOf(response);
      }
      if (outcome.failure() != null) {
        LOG.log(Level.WARNING, call.logPrefix() + "the application "
            + application.getClass().getName() + " failed on " + request.method() + " " + request.path() + outcome.stage()
            + "; answered " + response.status(), outcome.failure());
      }
      return new Served(response, outcome.failure(), route.durable());
    } finally {
      call.end(); // whatever kept the call, or a state of it, reaches nothing from now on
    }
  }

  /** The handler's part of a call: the body read, the handler run. */
  private Object handle(Request request, Move move, CallHost host, Routes.Route route,
      DispatchedCall call) throws Exception {
    if (route.move()) {
      return ((MoveHandler) route.handler()).handle(call,
          move != null ? move : Move.refused(host.worker(), Move.NOT_PERFORMED));
    } else if (route.bodyType() != null) {
      @SuppressWarnings("unchecked")
      BodyHandler<Object> handler = (BodyHandler<Object>) route.handler();
      return handler.handle(call, body(request, route.bodyType()));
    }
    return ((Handler) route.handler()).handle(call);
  }

  /**
   * What one step of a call (a filter, the handler) came to: the reply (null when it did not
   * answer), the failure behind a 500 and where it happened, whether it answered.
   */
  private record Outcome(Response response, Throwable failure, String stage, boolean answered) {}

  /** One step of the application's code in a call. */
  @FunctionalInterface
  private interface Step {
    Object run() throws Exception;
  }

  /**
   * Runs {@code step}: its answer (a null result is no answer), a refusal's error, the
   * {@code 404} of an unknown page, or the {@code 500} of a failure with the failure.
   */
  private static Outcome step(Request request, Routes.Route route, String what, Step step) {
    String stage = " (in " + what + ")";
    try {
      Object result = step.run();
      if (result != null && Routes.isAsynchronous(result.getClass())) {
        throw new IllegalStateException(Routes.asynchronousRefusal(route.method() + " "
            + route.pattern(), result.getClass().getName()) + "; answered 500");
      }
      return result == null ? new Outcome(null, null, "", false)
          : new Outcome(reply(result), null, "", true);
    } catch (Refusal refusal) {
      return new Outcome(error(refusal.status(), refusal.code(), refusal.getMessage()), null, "",
          true);
    } catch (StateException e) {
      if (e.reason() == StateException.Reason.UNKNOWN_PAGE) {
        // The exception's message is the developer's (it names the API); a client gets this.
        return new Outcome(error(404, "unknown_page", "this page is not one of this"
            + " connection's pages (closed, expired, or another browser's); nothing was read or"
            + " written: open a new page"), null, "", true);
      }
      return failure(request, e, stage);
    } catch (Exception e) {
      return failure(request, e, stage);
    }
  }

  private static Outcome failure(Request request, Exception failure, String stage) {
    return new Outcome(error(500, "application_failed", "the application failed on "
        + request.method() + " " + request.path() + "; the failure was logged"), failure, stage,
        true);
  }

  private static Object body(Request request, Class<?> type) {
    String what = request.method() + " " + request.path();
    if (request.bodyLength() == 0) {
      throw new Refusal(400, "bad_request", what + " needs a JSON body (" + type.getSimpleName()
          + "); nothing was done");
    }
    Object body;
    try {
      body = Json.MAPPER.readValue(request.body(), type);
    } catch (JsonProcessingException e) {
      throw new Refusal(400, "bad_request", "the body of " + what + " is not a "
          + type.getSimpleName() + ": " + e.getOriginalMessage() + "; nothing was done");
    } catch (IOException e) {
      throw new Refusal(400, "bad_request", "the body of " + what + " could not be read: "
          + e.getMessage() + "; nothing was done");
    }
    if (body == null) {
      throw new Refusal(400, "bad_request", "the body of " + what + " is null, not a "
          + type.getSimpleName() + "; nothing was done");
    }
    return body;
  }

  private static Response reply(Object result) {
    if (result instanceof Response response) {
      return response;
    }
    return result == null ? Response.empty(204) : Response.json(result);
  }

  private static Response headOf(Response response) {
    Response head = Response.bytes(response.status(), null, null);
    for (Map.Entry<String, String> header : response.headers()) {
      head = head.withHeader(header.getKey(), header.getValue());
    }
    return head;
  }

  /**
   * A JSON error reply {@code {"error": code, "message": message}}, its keys in that order in every
   * JVM (a record's components keep their order; a {@code Map.of} would not).
   */
  static Response error(int status, String code, String message) {
    return Response.json(status, new ErrorBody(code, message));
  }

  /** The body of every error reply a host or the dispatcher makes: its keys in this order. */
  record ErrorBody(String error, String message) {}

  // ---- hooks ----------------------------------------------------------------------------------

  /**
   * Runs {@link CryoApplication#onWake} in the user's turn (the host holds it).
   *
   * @return the hook's failure (logged), or null
   */
  public Throwable wake(StateHost host) {
    HookStay stay = new HookStay(this, host, "onWake");
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      application.onWake(stay);
      return null;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "onWake of '" + host.user() + "' failed on worker " + host.worker(), e);
      return e;
    } finally {
      stay.end();
    }
  }

  /**
   * Runs {@link CryoApplication#onFreeze}.
   *
   * @return the hook's failure (logged; the freeze goes on), or null
   */
  public Throwable freeze(StateHost host, FreezeReason reason) {
    HookStay stay = new HookStay(this, host, "onFreeze");
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      application.onFreeze(stay, Objects.requireNonNull(reason));
      return null;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "onFreeze (" + reason + ") of '" + host.user() + "' failed on worker "
          + host.worker() + "; he is frozen with his state as it is", e);
      return e;
    } finally {
      stay.end();
    }
  }

  /**
   * Runs {@link CryoApplication#onPageClosed}.
   *
   * @return the hook's failure (logged), or null
   */
  public Throwable pageClosed(StateHost host, String pageId) {
    HookStay stay = new HookStay(this, host, "onPageClosed");
    try (ContextClassLoader context = ContextClassLoader.of(application)) {
      application.onPageClosed(stay, pageId);
      return null;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "onPageClosed of page '" + pageId + "' of '" + host.user()
          + "' failed on worker " + host.worker(), e);
      return e;
    } finally {
      stay.end();
    }
  }

  // ---- state classes --------------------------------------------------------------------------

  /**
   * The storage name of state class {@code type}: its {@link StateKey}, else its simple name.
   *
   * @throws StateException {@link StateException.Reason#BAD_STATE_CLASS}
   */
  String keyOf(Class<?> type) {
    Objects.requireNonNull(type, "type");
    String refusal = stateClassRefusal(type);
    if (refusal != null) {
      throw new StateException(StateException.Reason.BAD_STATE_CLASS, type.getName() + " "
          + refusal + ": a state class is a record or a concrete class of the application's,"
          + " written as an object");
    }
    StateKey named = type.getAnnotation(StateKey.class);
    String key = named != null ? named.value() : type.getSimpleName();
    if (key.isEmpty() || key.indexOf('.') >= 0 || key.indexOf('@') >= 0) {
      throw new StateException(StateException.Reason.BAD_STATE_CLASS, "state class "
          + type.getName() + " is stored under '" + key + "', which is empty or holds a '.' or"
          + " an '@'; nothing was read or written: give it a @StateKey without them");
    }
    Class<?> bound = keys.putIfAbsent(key, type);
    if (bound != null && bound != type) {
      throw new StateException(StateException.Reason.BAD_STATE_CLASS, "state classes "
          + bound.getName() + " and " + type.getName() + " are both stored under '" + key
          + "'; nothing was read or written: give one of them a @StateKey of its own");
    }
    return key;
  }

  private static String stateClassRefusal(Class<?> type) {
    if (type.isPrimitive() || type.isArray()) {
      return "is not a class of objects";
    }
    if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
      return "is abstract: it cannot be made when read";
    }
    if (type.isEnum()) {
      return "is an enum: wrap it in a record";
    }
    if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
        || PlainData.isJdk(type.getName())) {
      return "is a JDK type: wrap it in a record of the application's";
    }
    String refusal = PlainData.refusal(type);
    return refusal == null ? null : "cannot be state (it " + refusal + ")";
  }

  /** A request id for a call that came without one: as the front's, 16 URL-safe characters. */
  static String mintRequestId() {
    byte[] bytes = new byte[12];
    java.util.concurrent.ThreadLocalRandom.current().nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  // ---- the call and the stay ------------------------------------------------------------------

  /**
   * The {@link Call} of one request: every method runs within the call's {@link Turn}, so that
   * after the handler returned each throws {@link IllegalStateException} naming the route.
   */
  private static final class DispatchedCall implements Call {
    private final Dispatcher dispatcher;
    private final CallHost host;
    private final StateHost state;
    private final Request request;
    private final Map<String, String> parameters;
    private final Turn turn;
    private final String requestId;
    private final CallLog log;
    private volatile String lastUser;

    DispatchedCall(Dispatcher dispatcher, CallHost host, Request request,
        Routes.Route route, Map<String, String> parameters) {
      this.dispatcher = dispatcher;
      this.host = host;
      this.request = request;
      this.parameters = parameters;
      this.turn = new Turn("the call of route " + route.method() + " " + route.pattern()
          + " (request " + request.method() + " " + request.path() + ")");
      this.state = turn.guard(host);
      String sent = request.header(Call.REQUEST_ID_HEADER);
      this.requestId = sent != null && !sent.isBlank() ? sent : mintRequestId();
      this.lastUser = host.user();
      this.log = new CallLog(System.getLogger(dispatcher.application.getClass().getName()),
          this::currentUser, requestId);
    }

    /** The user now while the call lives, else the last one read. */
    private String currentUser() {
      try {
        lastUser = turn.within(host::user);
      } catch (IllegalStateException ended) {
        // the call has ended: its last user
      }
      return lastUser;
    }

    /** The prefix {@link #log()} puts before its lines. */
    String logPrefix() {
      return log.prefix();
    }

    @Override
    public String requestId() {
      return turn.within(() -> requestId);
    }

    @Override
    public System.Logger log() {
      return turn.within(() -> log); // the logger itself works on after the call
    }

    /** Ends the call: see {@link Turn#end()}. */
    void end() {
      turn.end();
    }

    @Override
    public Request request() {
      return turn.within(() -> request);
    }

    @Override
    public String pathParameter(String name) {
      return turn.within(() -> {
        String value = parameters.get(name);
        if (value == null) {
          throw new IllegalArgumentException("the route of " + request.path() + " has no"
              + " parameter {" + name + "}; it has " + parameters.keySet());
        }
        return value;
      });
    }

    @Override
    public String user() {
      return turn.within(host::user);
    }

    @Override
    public boolean isGuest() {
      return turn.within(host::isGuest);
    }

    @Override
    public String worker() {
      return turn.within(host::worker);
    }

    @Override
    public <T> State<T> user(Class<T> type) {
      return turn.within(() -> new TypedState<>(state, Scope.USER, null, dispatcher.keyOf(type),
          type));
    }

    @Override
    public <T> State<T> connection(Class<T> type) {
      return turn.within(() -> new TypedState<>(state, Scope.CONNECTION, null,
          dispatcher.keyOf(type), type));
    }

    @Override
    public <T> State<T> page(String pageId, Class<T> type) {
      return turn.within(() -> {
        String key = dispatcher.keyOf(type);
        if (pageId == null || !host.hasPage(pageId)) {
          throw new StateException(StateException.Reason.UNKNOWN_PAGE, null, "page '" + pageId
              + "' is not a page of this connection; nothing was read or written: open one with"
              + " openPage() and name it by the id it returned", null);
        }
        return new TypedState<>(state, Scope.PAGE, pageId, key, type);
      });
    }

    @Override
    public boolean hasPage(String pageId) {
      return turn.within(() -> pageId != null && host.hasPage(pageId));
    }

    @Override
    public String openPage() {
      return turn.within(() -> {
        int open = host.pages().size();
        if (open >= MAX_PAGES_PER_CONNECTION) {
          throw new Refusal(429, "too_many_pages", "this connection has " + open + " pages"
              + " open, the most one may have; no page was opened: close one first");
        }
        return host.openPage();
      });
    }

    @Override
    public List<String> pages() {
      return turn.within(() -> host.pages().stream().sorted().toList());
    }

    @Override
    public boolean closePage(String pageId) {
      return turn.within(() -> {
        if (pageId == null || !host.hasPage(pageId) || !host.closePage(pageId)) {
          return false;
        }
        dispatcher.pageClosed(host, pageId); // a failure is logged; the page stays closed
        return true;
      });
    }

    @Override
    public Pushed pushToPage(String pageId, Object message) {
      return turn.within(() -> {
        if (pageId == null || pageId.isBlank()) {
          throw new IllegalArgumentException("a push to a page names the page, got '" + pageId
              + "'; nothing was sent");
        }
        return host.pushToPage(pageId, pushed(message));
      });
    }

    @Override
    public Pushed pushToConnection(Object message) {
      return turn.within(() -> host.pushToConnection(pushed(message)));
    }

    @Override
    public Pushed pushToUser(Object message) {
      return turn.within(() -> host.pushToUser(pushed(message)));
    }

    private static byte[] pushed(Object message) {
      try {
        return Json.MAPPER.writeValueAsBytes(message);
      } catch (IOException e) {
        throw new IllegalArgumentException("the push could not be written as JSON: "
            + e.getMessage() + "; nothing was sent: push records, maps, lists, strings, numbers"
            + " and booleans", e);
      }
    }

    @Override
    public LoginResult login(String user) {
      return turn.within(() -> {
        if (user == null || user.isBlank()) {
          throw new IllegalArgumentException("a login names a user, got '" + user + "'; nothing"
              + " changed");
        }
        LoginResult result = host.login(user);
        if (result == LoginResult.HERE && dispatcher.routes.merges().any()) {
          try {
            dispatcher.routes.merges().apply(dispatcher, host); // in the identity's turn now
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IllegalStateException("a login merge into '" + user + "' failed: " + e
                + "; the login stands, and the merge runs again at the identity's next call", e);
          }
        }
        return result;
      });
    }

    @Override
    public void logout() {
      turn.run(host::logout);
    }

    @Override
    public void forget() {
      turn.run(host::forget);
    }
  }

  /** The {@link Stay} of one hook: valid while the hook runs, as {@link DispatchedCall}. */
  private static final class HookStay implements Stay {
    private final Dispatcher dispatcher;
    private final StateHost state;
    private final Turn turn;

    HookStay(Dispatcher dispatcher, StateHost host, String hook) {
      this.dispatcher = dispatcher;
      this.turn = new Turn("the " + hook + " hook of '" + host.user() + "'");
      this.state = turn.guard(host);
    }

    void end() {
      turn.end();
    }

    @Override
    public String user() {
      return state.user();
    }

    @Override
    public String worker() {
      return state.worker();
    }

    @Override
    public <T> State<T> user(Class<T> type) {
      return turn.within(() -> new TypedState<>(state, Scope.USER, null, dispatcher.keyOf(type),
          type));
    }
  }
}
