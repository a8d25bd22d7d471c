package dev.cryo.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs an application in one JVM, without the runtime, as the runtime would: connections with
 * guests, pages, login, one call at a time, typed state kept as plain data — and, on demand, a
 * freeze and a wake of the user between every call, so that what would not survive a move shows at
 * once.
 *
 * <pre>{@code
 * CryoTestKit kit = CryoTestKit.of(Notes::new).freezeBetweenCalls(true);
 * CryoTestKit.Connection browser = kit.connect();
 * String page = CryoTestKit.json(browser.post("/api/pages")).get("page").asText();
 * Response reply = browser.post("/api/notes", Map.of("page", page, "text", "hello"));
 * }</pre>
 *
 * <h2>What a freeze does here</h2>
 *
 * <p>{@link CryoApplication#onFreeze} runs; the user's state, his connections' and their pages'
 * are carried through plain data as the freezer carries them (fresh containers, integers in the
 * narrowest type); the instance of the application that served him is left behind. His next call
 * wakes him in a new instance, made by the kit's factory, on a new worker name
 * ({@code kit-2}, {@code kit-3}, …), and {@link CryoApplication#onWake} runs first. So state kept in
 * the application's own fields is lost, exactly as it would be when the user moves to another
 * process. New users are born on {@code kit-1}.
 *
 * <h2>Login, moves, failures</h2>
 *
 * <p>A login onto an identity nobody holds, from a guest's only connection, carries the guest's
 * user state; onto an identity that exists, the identity keeps its own. An identity that is frozen,
 * or awake in another instance, is {@link LoginResult#ELSEWHERE}: the connection is handed over when
 * the call ends. A move route's request freezes the user and wakes him in a new instance before the
 * handler runs, unless {@link #refuseMoves} says why not. {@link Call#logout()} and
 * {@link Call#forget()} end, once the call is over, the connection (its pages closed; its user
 * stays, a guest goes) or the user with all his connections, as the runtime does: a
 * {@link Connection} they ended makes its next request as a new visitor, on a new
 * {@linkplain Connection#id() id}, as a browser whose cookie the runtime retired. By default a call the application failed
 * (a 500 it did not choose) throws an {@link AssertionError} carrying the failure, as does a failed
 * hook; {@link #failOnApplicationError(boolean)} turns that off.
 *
 * <p>When {@link CryoApplication#onWake} and {@link CryoApplication#onFreeze} run, and the replies
 * the kit makes instead of the application — a failed {@code onWake}'s 500, the 503 of state the
 * running version cannot read — are the runtime's: the kit and the worker's application host
 * follow one {@link HostPolicy}.
 *
 * <p>Thread-safe, but calls run one at a time across the whole kit, and a call's state, pages,
 * pushes and login are served on its handler's thread only: a use from another thread while the
 * handler runs throws {@link IllegalStateException} (the kit holds its lock for the whole call).
 */
public final class CryoTestKit implements AutoCloseable {

  /** The prefix of guests' names, as the runtime spells them. */
  public static final String GUEST_PREFIX = "guest_";

  private Supplier<? extends CryoApplication> factory;
  private final Map<String, String> config;
  private final List<Instance> started = new ArrayList<>();
  private Dispatcher probe;
  private Instance home;
  private boolean freezeBetweenCalls;
  private boolean failOnApplicationError = true;
  private String moveRefusal;
  private int instances = 1;
  private int connectionCount;
  private int pageCount;
  private int freezes;

  /** The thread serving a call now, or null: the kit's hosts serve no other thread meanwhile. */
  private volatile Thread serving;

  private final Map<String, KitUser> users = new LinkedHashMap<>();
  private final Map<String, KitConnection> connections = new LinkedHashMap<>();
  private final Map<String, KitPage> pages = new LinkedHashMap<>();
  /** The connections a logout or a forget ended: their next request is a new visitor's. */
  private final Set<String> retired = new java.util.HashSet<>();
  private final List<KitPush> pushes = new ArrayList<>();

  /**
   * One push the application made, as the kit recorded it (the kit has no sockets, so a push is
   * named, never {@linkplain Pushed#written() written}).
   *
   * @param page the page it was for
   * @param json the message, as JSON text
   */
  public record KitPush(String page, String json) {}

  /** Every push made so far, one entry per page it named, oldest first. */
  public synchronized List<KitPush> pushes() {
    return List.copyOf(pushes);
  }

  private CryoTestKit(Supplier<? extends CryoApplication> factory, Map<String, String> config) {
    this.factory = factory;
    this.config = Map.copyOf(config);
    this.home = start(Instance.of("kit-1", Dispatcher.of(Objects.requireNonNull(factory.get(),
        "the factory made no application"))));
    this.probe = home.dispatcher;
  }

  /**
   * A kit running the applications {@code factory} makes: one now, one more at every wake.
   *
   * @throws IllegalArgumentException when the application fails to declare its routes
   */
  public static CryoTestKit of(Supplier<? extends CryoApplication> factory) {
    return of(factory, Map.of());
  }

  /**
   * A kit as {@link #of(Supplier)} whose instances start with {@code config} as their
   * configuration ({@link AppContext#config()}), as {@code cryo serve --app-config} gives it.
   * Every instance the kit makes — one per worker the runtime would run, so one now and one at
   * every wake — runs {@link CryoApplication#onStart} before its first call; {@link #close} runs
   * {@link CryoApplication#onStop} on each.
   *
   * @throws IllegalArgumentException when the application fails to declare its routes
   * @throws IllegalStateException when its {@code onStart} throws (the cause attached)
   */
  public static CryoTestKit of(Supplier<? extends CryoApplication> factory,
      Map<String, String> config) {
    return new CryoTestKit(Objects.requireNonNull(factory, "factory"),
        Objects.requireNonNull(config, "config"));
  }

  /**
   * Runs {@link CryoApplication#onStop} of every instance the kit started, in the order started,
   * as workers that quit would; a failure is logged. The kit serves nothing afterwards that it
   * did not serve before: later calls start new instances as usual.
   */
  @Override
  public synchronized void close() {
    for (Instance instance : started) {
      instance.dispatcher.stop();
    }
    started.clear();
  }

  /** Runs {@code instance}'s onStart with the kit's configuration, and keeps it for close. */
  private Instance start(Instance instance) {
    instance.dispatcher.start(AppContext.of(instance.name, config));
    started.add(instance);
    return instance;
  }

  /** Whether every call ends with a freeze of the users it served; default false. */
  public synchronized CryoTestKit freezeBetweenCalls(boolean value) {
    this.freezeBetweenCalls = value;
    return this;
  }

  /** Whether an application failure (a 500 it did not choose, a failed hook) throws; default true. */
  public synchronized CryoTestKit failOnApplicationError(boolean value) {
    this.failOnApplicationError = value;
    return this;
  }

  /** Refuses every move from now on with {@code reason} (as when no other worker can take him); null allows them again. */
  public synchronized CryoTestKit refuseMoves(String reason) {
    this.moveRefusal = reason;
    return this;
  }

  /**
   * Deploys a new version of the application, as a rolling reload would: every awake user is
   * frozen ({@link FreezeReason#QUIT}) by the version he is in, and from now on every instance —
   * for new users and for wakes — is made by {@code next}. A user frozen by an older
   * {@link CryoApplication#stateVersion()} wakes through {@link CryoApplication#upgrade} first; one
   * the new version cannot read is answered {@code 503} with {@code unreadable_parcel}, his state
   * kept as it was (and an {@link AssertionError} thrown while {@link #failOnApplicationError}).
   *
   * @throws IllegalArgumentException when the new version fails to declare its routes
   */
  public synchronized CryoTestKit upgradeTo(Supplier<? extends CryoApplication> next) {
    Objects.requireNonNull(next, "next");
    Instance nextHome = start(Instance.of("kit-" + ++instances, Dispatcher.of(
        Objects.requireNonNull(next.get(), "the factory made no application"))));
    for (KitUser user : users.values()) {
      if (user.instance != null) {
        freeze(user, FreezeReason.QUIT);
      }
    }
    this.factory = next;
    this.home = nextHome;
    this.probe = nextHome.dispatcher;
    return this;
  }

  /** A new connection: a browser with a cookie of its own, owned by its guest until it logs in. */
  public synchronized Connection connect() {
    return new Connection("k" + ++connectionCount);
  }

  /**
   * Seeds {@code user} as the freezer would hold him after state version {@code stateVersion} froze
   * him: frozen, his user state read from {@code userState} — a JSON object of storage names
   * ({@link StateKey}, else the class's simple name) to each state's stored value, as a parcel's
   * user store holds it — with one connection, returned. His first call wakes him through
   * {@link CryoApplication#upgrade} when the running version's state version is newer, so an
   * upgrade from version N is tested without version N's classes:
   *
   * <pre>{@code
   * CryoTestKit.Connection old = kit.seedFrozen("anna", 1, "{\"Cart\": {\"items\": [\"pen\"]}}");
   * old.get("/cart"); // upgraded by the running version
   * }</pre>
   *
   * @param user a new user of the kit, not a guest's name
   * @param stateVersion the state version that wrote the JSON: 1 or more
   * @param userState his user store as JSON (an object; {@code "{}"} for none)
   * @return a connection of his
   * @throws IllegalArgumentException for a known user, a guest's name, a version below 1, or JSON
   *     that is not an object of plain data (no nulls); nothing seeded
   */
  public Connection seedFrozen(String user, int stateVersion, String userState) {
    return seedFrozen(user, stateVersion, userState, "{}", Map.of());
  }

  /**
   * As {@link #seedFrozen(String, int, String)}, with the connection's state and pages too.
   *
   * @param connectionState the connection's store as JSON
   * @param pageStates each page's id to its store as JSON: pages of the returned connection
   */
  public synchronized Connection seedFrozen(String user, int stateVersion, String userState,
      String connectionState, Map<String, String> pageStates) {
    Objects.requireNonNull(user, "user");
    if (user.isBlank() || user.startsWith(GUEST_PREFIX) || users.containsKey(user)) {
      throw new IllegalArgumentException("'" + user + "' cannot be seeded: "
          + (users.containsKey(user) ? "the kit holds him already" : "a seeded user has a real"
          + " name, not a guest's") + "; nothing seeded");
    }
    if (stateVersion < 1) {
      throw new IllegalArgumentException("state version " + stateVersion + " wrote nothing: a"
          + " state version is 1 or more; nothing seeded");
    }
    Map<String, Object> userStore = storeOf("the user state of '" + user + "'", userState);
    Map<String, Object> connectionStore = storeOf("the connection state", connectionState);
    Map<String, Map<String, Object>> pageStores = new LinkedHashMap<>();
    pageStates.forEach((pageId, json) -> {
      if (pages.containsKey(pageId)) {
        throw new IllegalArgumentException("page '" + pageId + "' exists already; nothing seeded");
      }
      pageStores.put(pageId, storeOf("the state of page '" + pageId + "'", json));
    });
    Connection connection = new Connection("k" + ++connectionCount);
    KitConnection kept = new KitConnection(connection.id(), user);
    kept.state.putAll(connectionStore);
    pageStores.forEach((pageId, store) -> {
      KitPage page = new KitPage(kept.id);
      page.state.putAll(store);
      pages.put(pageId, page);
      kept.pages.add(pageId);
    });
    connections.put(kept.id, kept);
    KitUser seeded = new KitUser(user);
    seeded.state.putAll(userStore);
    seeded.connections.add(kept.id);
    seeded.born = true;
    seeded.stateVersion = stateVersion;
    users.put(user, seeded);
    return connection;
  }

  /** A store read from JSON, as plain data the freezer brings back. */
  private static Map<String, Object> storeOf(String what, String json) {
    Object read;
    try {
      read = Json.MAPPER.readValue(Objects.requireNonNull(json, what), Object.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(what + " is not JSON: " + e.getMessage()
          + "; nothing seeded", e);
    }
    if (!(read instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(what + " is not a JSON object of storage names to"
          + " values; nothing seeded");
    }
    Map<String, Object> store = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      if (!PlainData.isPlain(entry.getValue())) {
        throw new IllegalArgumentException(what + " holds under '" + entry.getKey() + "' what"
            + " the freezer never holds (a null, or a key with a '.'); nothing seeded");
      }
      store.put((String) entry.getKey(), PlainData.thaw(entry.getValue()));
    }
    return store;
  }

  /**
   * Freezes {@code user} now ({@link FreezeReason#ORDERED}); his next call wakes him in a new
   * instance.
   *
   * @return whether he was awake
   */
  public synchronized boolean freeze(String user) {
    KitUser found = users.get(user);
    if (found == null || found.instance == null) {
      return false;
    }
    freeze(found, FreezeReason.ORDERED);
    return true;
  }

  /** Whether {@code user} is frozen (known and not awake in any instance). */
  public synchronized boolean isFrozen(String user) {
    KitUser found = users.get(user);
    return found != null && found.instance == null;
  }

  /** The users the kit holds, awake or frozen. */
  public synchronized Set<String> users() {
    return Set.copyOf(users.keySet());
  }

  /** How many freezes happened. */
  public synchronized int freezes() {
    return freezes;
  }

  /** The plain data of {@code user}'s state under {@code key} (a state class's storage name), or null; for assertions. */
  public synchronized Object plainUserState(String user, String key) {
    KitUser found = users.get(user);
    return found == null ? null : PlainData.thaw(found.state.get(key));
  }

  /**
   * The body of {@code response} read as JSON.
   *
   * @throws AssertionError when it is not JSON
   */
  public static JsonNode json(Response response) {
    try {
      return Json.MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw new AssertionError("the reply " + response + " is not JSON: " + response.bodyText(), e);
    }
  }

  // ---- one connection -------------------------------------------------------------------------

  /** One connection of the kit: sends requests, as a browser with its cookie would. */
  public final class Connection {

    private String id; // guarded by the kit

    private Connection(String id) {
      this.id = id;
    }

    /**
     * The connection's id: the connection its cookie reaches. After a {@link Call#logout()} or a
     * {@link Call#forget()} ended it, its next request is a new visitor's, on a new id, as a
     * browser whose cookie the runtime retired gets a new connection.
     */
    public String id() {
      synchronized (CryoTestKit.this) {
        return id;
      }
    }

    /** Its owner: its guest until it logs in, null before its first call (or since it ended). */
    public String user() {
      synchronized (CryoTestKit.this) {
        KitConnection connection = connections.get(id);
        return connection == null ? null : connection.owner;
      }
    }

    /** {@code GET pathAndQuery}. */
    public Response get(String pathAndQuery) {
      return send("GET", pathAndQuery, null);
    }

    /** {@code POST path} without a body. */
    public Response post(String pathAndQuery) {
      return send("POST", pathAndQuery, null);
    }

    /** {@code POST path} with {@code body} as JSON (a String is sent as it is). */
    public Response post(String pathAndQuery, Object body) {
      return send("POST", pathAndQuery, body);
    }

    /**
     * One request: {@code body} null for none, a {@code byte[]} or a String as it is, anything else
     * as JSON.
     */
    public Response send(String method, String pathAndQuery, Object body) {
      byte[] bytes = body == null ? null : body instanceof byte[] raw ? raw
          : body instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : Json.write(body);
      Request base = Request.of(method, pathAndQuery, bytes);
      List<Map.Entry<String, String>> headers = body == null ? List.of()
          : List.of(Map.entry("Content-Type", Response.JSON));
      return request(Request.of(base.method(), base.path(), base.query(), headers, bytes));
    }

    /** One request as it is. */
    public Response request(Request request) {
      synchronized (CryoTestKit.this) {
        if (retired.contains(id)) { // ended by a logout or a forget: a new visitor's connection
          id = "k" + ++connectionCount;
        }
        return serve(id, request);
      }
    }

    /**
     * Drops the connection as the runtime's expiry would: its pages close for good
     * ({@link CryoApplication#onPageClosed}), and its user goes with his last connection.
     */
    public void close() {
      drop(id);
    }
  }

  // ---- serving --------------------------------------------------------------------------------

  private synchronized Response serve(String connectionId, Request request) {
    if (probe.staticResources().covers(request.path())) { // nobody's turn, no guest: as a worker
      return probe.staticResources().serve(request);
    }
    KitConnection connection = connections.computeIfAbsent(connectionId,
        id -> new KitConnection(id, GUEST_PREFIX + id));
    KitUser user = users.computeIfAbsent(connection.owner, KitUser::new);
    user.connections.add(connectionId);
    Move move = null;
    if (probe.isMoveRoute(request.method(), request.path())) {
      String from = user.instance == null ? home.name : user.instance.name;
      if (moveRefusal != null) {
        move = Move.refused(from, moveRefusal);
      } else {
        if (user.instance != null) {
          freeze(user, FreezeReason.ORDERED);
        }
        user.instance = newInstance();
        move = Move.moved(from, user.instance.name);
      }
    }
    if (user.instance == null) {
      Instance next = user.born ? newInstance() : home;
      Response unreadable = upgrade(user, next.dispatcher);
      if (unreadable != null) {
        return unreadable;
      }
      user.instance = next;
    }
    user.born = true;
    List<Throwable> failures = new ArrayList<>();
    Dispatcher.Served unwelcome = user.instance.policy.welcome(user,
        new KitStateHost(user, null));
    if (unwelcome != null) {
      fail("onWake of '" + user.name + "'", unwelcome.failure());
      return unwelcome.response();
    }
    String servedFirst = user.name;
    KitCallHost host = new KitCallHost(user, connection);
    Dispatcher.Served served;
    serving = Thread.currentThread();
    try {
      served = user.instance.dispatcher.serve(request, move, host);
    } finally {
      serving = null;
    }
    if (host.handOverTo != null) {
      handOver(connection, host.handOverTo);
    }
    if (host.ending != null) {
      end(host.ending, connection);
    }
    if (served.failure() != null) {
      failures.add(served.failure());
    }
    if (freezeBetweenCalls) {
      for (String name : new LinkedHashSet<>(List.of(servedFirst, connection.owner))) {
        KitUser served2 = users.get(name);
        if (served2 != null && served2.instance != null) {
          freeze(served2, FreezeReason.TRANSFER);
        }
      }
    }
    if (!failures.isEmpty()) {
      fail(request.method() + " " + request.path(), failures.get(0));
    }
    return served.response();
  }

  /**
   * Brings a frozen user's state up to {@code into}'s version, all or nothing: the reply that
   * refuses him when it cannot read him (his state left as it was), else null.
   */
  private Response upgrade(KitUser user, Dispatcher into) {
    int version = user.stateVersion;
    if (version == 0 || version == into.stateVersion()) {
      return null; // born here, or frozen by the same version
    }
    Map<Map<String, Object>, Map<String, Object>> upgraded = new java.util.IdentityHashMap<>();
    try {
      upgraded.put(user.state, into.upgrade(Scope.USER, version, user.state));
      for (String connectionId : user.connections) {
        KitConnection connection = connections.get(connectionId);
        upgraded.put(connection.state, into.upgrade(Scope.CONNECTION, version, connection.state));
        for (String pageId : connection.pages) {
          Map<String, Object> page = pages.get(pageId).state;
          upgraded.put(page, into.upgrade(Scope.PAGE, version, page));
        }
      }
    } catch (StateException e) {
      fail("the wake of '" + user.name + "' by state version " + into.stateVersion(), e);
      return HostPolicy.unreadableParcel(e.getMessage());
    }
    upgraded.forEach((store, content) -> {
      Map<String, Object> copy = new LinkedHashMap<>(content);
      store.clear();
      store.putAll(copy);
      thawAll(store);
    });
    user.stateVersion = into.stateVersion();
    return null;
  }

  private Instance newInstance() {
    return start(Instance.of("kit-" + ++instances, Dispatcher.of(Objects.requireNonNull(
        factory.get(), "the factory made no application"))));
  }

  private void fail(String what, Throwable failure) {
    if (failOnApplicationError) {
      throw new AssertionError("the application failed on " + what + ": " + failure, failure);
    }
  }

  /** The freeze: the hook, then everything of his through plain data, then no instance. */
  private void freeze(KitUser user, FreezeReason reason) {
    Throwable failure = user.instance.policy.freeze(user, new KitStateHost(user, null), reason);
    thawAll(user.state);
    for (String connectionId : user.connections) {
      KitConnection connection = connections.get(connectionId);
      thawAll(connection.state);
      for (String pageId : connection.pages) {
        thawAll(pages.get(pageId).state);
      }
    }
    user.stateVersion = user.instance.dispatcher.stateVersion();
    user.instance = null;
    freezes++;
    if (failure != null) {
      fail("onFreeze of '" + user.name + "'", failure);
    }
  }

  private static void thawAll(Map<String, Object> state) {
    state.replaceAll((key, value) -> PlainData.thaw(value));
  }

  /** The hand-over of a login ELSEWHERE: the connection joins the identity, whose state wins. */
  private void handOver(KitConnection connection, String identity) {
    KitUser previous = users.get(connection.owner);
    KitUser target = users.get(identity);
    previous.connections.remove(connection.id);
    if (previous.connections.isEmpty()) {
      users.remove(previous.name);
    }
    keepForMerge(previous, target);
    target.connections.add(connection.id);
    connection.owner = identity;
  }

  /**
   * A logout's or a forget's end, after its call: the connection (its user stays, a guest goes with
   * his last connection) or the whole user, their pages closed for good; every connection ended is
   * retired, as the runtime retires its cookie.
   */
  private void end(String ending, KitConnection connection) {
    KitUser user = users.get(connection.owner);
    if (ending.equals("user") && user != null) {
      for (String connectionId : List.copyOf(user.connections)) {
        retired.add(connectionId);
        drop(connectionId, false);
      }
      users.remove(user.name);
      return;
    }
    retired.add(connection.id);
    drop(connection.id, user != null && !user.name.startsWith(GUEST_PREFIX));
  }

  /**
   * A guest who goes (his last connection logged in) into an identity that exists leaves his user
   * state waiting for the application's login merges, as the runtime does; without any declared,
   * it is dropped.
   */
  private void keepForMerge(KitUser previous, KitUser target) {
    if (previous == target || !previous.name.startsWith(GUEST_PREFIX)
        || !previous.connections.isEmpty() || !probe.mergesAtLogin()) {
      return;
    }
    Map<String, Object> guest = new LinkedHashMap<>(previous.state);
    thawAll(guest);
    target.state.put(Dispatcher.MERGING_GUESTS, PlainData.thaw(Dispatcher.withMergingGuest(
        target.state.get(Dispatcher.MERGING_GUESTS), guest)));
  }

  private synchronized void drop(String connectionId) {
    drop(connectionId, false);
  }

  /** Drops a connection and its pages; its user goes with his last one unless {@code keepUser}. */
  private synchronized void drop(String connectionId, boolean keepUser) {
    KitConnection connection = connections.remove(connectionId);
    if (connection == null) {
      return;
    }
    KitUser user = users.get(connection.owner);
    user.connections.remove(connectionId);
    if (user.connections.isEmpty() && !keepUser) {
      users.remove(user.name);
    }
    for (String pageId : connection.pages) {
      pages.remove(pageId);
    }
    if (user.instance == null) {
      return; // hooks run in an instance; a frozen user's pages close unheard, as in the runtime
    }
    for (String pageId : connection.pages) {
      Throwable failure = user.instance.dispatcher.pageClosed(new KitStateHost(user, null),
          pageId);
      if (failure != null) {
        fail("onPageClosed of '" + pageId + "'", failure);
      }
    }
  }

  /**
   * Refuses a use of a call's state from another thread than the handler's while the kit serves
   * the call: the kit holds its lock for the whole call, so that use would wait for the call's end
   * (and the end waits for the uses in progress: see {@link Call}).
   */
  private void servingThreadOnly() {
    Thread now = serving;
    if (now != null && now != Thread.currentThread()) {
      throw new IllegalStateException("the test kit serves a call's state, pages, pushes and login"
          + " on its handler's thread only, and this use came from thread '"
          + Thread.currentThread().getName() + "' while the handler ran; nothing was read or"
          + " written: use the call on the handler's thread (the runtime would also refuse it"
          + " once the handler returned)");
    }
  }

  // ---- the model ------------------------------------------------------------------------------

  /** One instance of the application, with the host policy the runtime's host uses too. */
  private record Instance(String name, Dispatcher dispatcher, HostPolicy policy) {
    static Instance of(String name, Dispatcher dispatcher) {
      return new Instance(name, dispatcher, HostPolicy.of(dispatcher));
    }
  }

  private static final class KitUser {
    String name;
    final Map<String, Object> state = new LinkedHashMap<>();
    final Set<String> connections = new LinkedHashSet<>();
    Instance instance;
    boolean born;
    /** The state version that froze him last; 0 while he was never frozen. */
    int stateVersion;

    KitUser(String name) {
      this.name = name;
    }
  }

  private static final class KitConnection {
    final String id;
    String owner;
    final Map<String, Object> state = new LinkedHashMap<>();
    final Set<String> pages = new LinkedHashSet<>();

    KitConnection(String id, String owner) {
      this.id = id;
      this.owner = owner;
    }
  }

  private static final class KitPage {
    final String connection;
    final Map<String, Object> state = new LinkedHashMap<>();

    KitPage(String connection) {
      this.connection = connection;
    }
  }

  /** State of one user (and, during a call, of one connection and its pages). */
  private class KitStateHost implements StateHost {
    KitUser user;
    final KitConnection connection;

    KitStateHost(KitUser user, KitConnection connection) {
      this.user = user;
      this.connection = connection;
    }

    @Override
    public String user() {
      return user.name;
    }

    @Override
    public String worker() {
      return user.instance == null ? home.name : user.instance.name;
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return PlainData.thaw(holder(scope, pageId).get(key));
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      Map<String, Object> holder = holder(scope, pageId);
      if (plain == null) {
        holder.remove(key);
        return;
      }
      if (!PlainData.isPlain(plain)) {
        throw new AssertionError("the dispatcher handed the kit something that is not plain data"
            + " under " + key + ": " + plain);
      }
      holder.put(key, PlainData.thaw(plain));
    }

    private Map<String, Object> holder(Scope scope, String pageId) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        if (users.get(user.name) != user) {
          throw new StateException(StateException.Reason.GONE, "'" + user.name + "' left (his"
              + " last connection was dropped); nothing was read or written");
        }
        return switch (scope) {
          case USER -> user.state;
          case CONNECTION -> {
            if (connection == null) {
              throw new StateException(StateException.Reason.GONE, "a hook reaches the user's"
                  + " state only");
            }
            yield connection.state;
          }
          case PAGE -> {
            KitPage page = pageId == null ? null : pages.get(pageId);
            if (connection == null || page == null || !page.connection.equals(connection.id)) {
              throw new StateException(StateException.Reason.UNKNOWN_PAGE, "page '" + pageId
                  + "' is not a page of this connection; nothing was read or written");
            }
            yield page.state;
          }
        };
      }
    }
  }

  /** The runtime of one call. */
  private final class KitCallHost extends KitStateHost implements CallHost {
    String handOverTo;
    /** What ends after the call: null, "connection" (a logout) or "user" (a forget). */
    String ending;

    KitCallHost(KitUser user, KitConnection connection) {
      super(user, connection);
    }

    @Override
    public Pushed pushToPage(String pageId, byte[] json) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        return record(pages.containsKey(pageId) ? List.of(pageId) : List.of(), json);
      }
    }

    @Override
    public Pushed pushToConnection(byte[] json) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        return record(List.copyOf(connection.pages), json);
      }
    }

    @Override
    public Pushed pushToUser(byte[] json) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        List<String> all = new ArrayList<>();
        for (String id : user.connections) {
          KitConnection owned = connections.get(id);
          if (owned != null) {
            all.addAll(owned.pages);
          }
        }
        return record(all, json);
      }
    }

    private Pushed record(List<String> targets, byte[] json) {
      String text = new String(json, java.nio.charset.StandardCharsets.UTF_8);
      for (String page : targets) {
        pushes.add(new KitPush(page, text));
      }
      return new Pushed(targets.size(), 0); // the kit has no sockets: named, never written
    }

    @Override
    public boolean isGuest() {
      return user.name.startsWith(GUEST_PREFIX);
    }

    @Override
    public boolean hasPage(String pageId) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        KitPage page = pages.get(pageId);
        return page != null && page.connection.equals(connection.id);
      }
    }

    @Override
    public String openPage() {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        String pageId = "page-" + ++pageCount;
        pages.put(pageId, new KitPage(connection.id));
        connection.pages.add(pageId);
        return pageId;
      }
    }

    @Override
    public List<String> pages() {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        return List.copyOf(connection.pages);
      }
    }

    @Override
    public boolean closePage(String pageId) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        KitPage page = pages.get(pageId);
        if (page == null || !page.connection.equals(connection.id)) {
          return false;
        }
        pages.remove(pageId);
        connection.pages.remove(pageId); // the connection stays, as in the runtime
        return true;
      }
    }

    @Override
    public LoginResult login(String identity) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        if (identity.startsWith(GUEST_PREFIX)) {
          throw new IllegalArgumentException("'" + GUEST_PREFIX + "' names belong to guests;"
              + " nobody logs in as '" + identity + "'; nothing changed");
        }
        if (handOverTo != null) {
          throw new IllegalStateException("this call already logged in elsewhere, as '"
              + handOverTo + "'; nothing changed");
        }
        if (identity.equals(user.name)) {
          return LoginResult.HERE;
        }
        KitUser target = users.get(identity);
        if (target != null && target.instance != user.instance) {
          handOverTo = identity; // frozen, or awake in another instance
          return LoginResult.ELSEWHERE;
        }
        KitUser previous = user;
        previous.connections.remove(connection.id);
        if (target == null && previous.name.startsWith(GUEST_PREFIX)
            && previous.connections.isEmpty()) {
          users.remove(previous.name); // the guest follows his first identity, state and all
          previous.name = identity;
          users.put(identity, previous);
          target = previous;
        } else {
          if (target == null) {
            target = new KitUser(identity);
            target.instance = previous.instance;
            target.born = true;
            users.put(identity, target);
          } else {
            keepForMerge(previous, target);
          }
          if (previous.connections.isEmpty()) {
            users.remove(previous.name);
          }
        }
        target.connections.add(connection.id);
        connection.owner = identity;
        user = target;
        return LoginResult.HERE;
      }
    }

    @Override
    public void logout() {
      end("connection");
    }

    @Override
    public void forget() {
      end("user");
    }

    private void end(String what) {
      servingThreadOnly();
      synchronized (CryoTestKit.this) {
        if (ending != null) {
          throw new IllegalStateException("this call already " + (ending.equals("user")
              ? "forgot its user" : "logged its connection out") + "; nothing changed");
        }
        ending = what;
      }
    }
  }
}
