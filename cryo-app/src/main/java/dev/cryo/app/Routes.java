package dev.cryo.app;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * Where an application declares its routes ({@link CryoApplication#routes}): a method, a path
 * pattern and a handler each.
 *
 * <pre>{@code
 * routes.get("/", call -> Response.html(PAGE));
 * routes.get("/api/items/{id}", call -> items(call).get(call.pathParameter("id")));
 * routes.post("/api/notes", Add.class, (call, add) -> ...);   // the JSON body read as an Add
 * routes.move("/api/move", (call, move) -> ...);              // the runtime moves the user first
 * }</pre>
 *
 * <p>A path pattern starts with {@code /}; a segment {@code {name}} matches any one non-empty
 * segment ({@link Call#pathParameter}). When several routes match a path, the one with the more
 * literal segments wins, then the one declared first. A path that no route matches is answered
 * {@code 404}; a path matched only for other methods, {@code 405} with {@code Allow}. {@code HEAD}
 * is served by the {@code GET} route, without a body. Declaring the same method and shape twice is
 * refused. Paths under {@code /_cryo/} are the runtime's.
 *
 * <h2>Filters</h2>
 *
 * <p>{@link #before} and {@link #after} declare steps around every route's handler, as the route
 * serving a request was found (a {@code 404} or {@code 405} of no route, and the runtime's own
 * paths, meet no filter):
 *
 * <pre>
 *   before 1 ─► before 2 ─► … ─► (body read) ─► handler ─► after 1 ─► after 2 ─► … ─► reply
 *      │ answers or throws          │ 400                  │ returns or throws
 *      └──────────────────────────┴──────────────────────┴──► after 1 ─► …
 * </pre>
 *
 * <p>Before filters run in declaration order; the first that answers (or throws) ends that run,
 * and neither the later before filters nor the handler run. After filters then run in declaration
 * order, every time a route was found, each handed the reply so far and the failure behind it.
 * Filters, handler and after filters share one {@link Call} and one turn of the user: the turn
 * ends when the last after filter returned. A filter's exception is treated as a handler's: a
 * {@link Refusal} is an answer, anything else a {@code 500} with a generic body, logged, unless an
 * after filter answers it otherwise ({@link AfterFilter#after}).
 *
 * <p>Handlers are synchronous: a handler whose class declares that it returns a
 * {@link CompletionStage} or a {@link Future} is refused here; a lambda that returns one is answered
 * {@code 500} (the application's failure, logged, naming the route), never a {@code 200} of the
 * future's fields.
 *
 * <p>Not thread-safe: used on one thread while the application declares its routes, then read only.
 */
public final class Routes {

  /** One declared route. */
  record Route(String method, PathPattern pattern, Class<?> bodyType, Object handler,
      boolean move, int order, boolean durable) {}

  private final List<Route> routes;
  private final List<BeforeFilter> befores;
  private final List<AfterFilter> afters;
  private final LoginMerges merges;
  private final List<StaticResources.Mount> mounts;
  /** The routes every declaration lands in: this, or the routes a {@link #durable} view is of. */
  private final Routes root;
  /** Whether the routes declared through this are durable ({@link #durable}). */
  private final boolean durable;
  private boolean sealed; // the root's only

  Routes() {
    this.routes = new ArrayList<>();
    this.befores = new ArrayList<>();
    this.afters = new ArrayList<>();
    this.merges = new LoginMerges();
    this.mounts = new ArrayList<>();
    this.root = this;
    this.durable = false;
  }

  private Routes(Routes root) {
    this.routes = root.routes;
    this.befores = root.befores;
    this.afters = root.afters;
    this.merges = root.merges;
    this.mounts = root.mounts;
    this.root = root;
    this.durable = true;
  }

  /**
   * These routes, whose routes declared through the view returned are <b>durable</b>:
   *
   * <pre>{@code
   * routes.durable().post("/api/orders", Order.class, (call, order) -> ...);
   * }</pre>
   *
   * <p>A durable call's reply is sent only once the user's state as the call left it — his, his
   * connection's and his pages', as one checkpoint of him — is forced to the disk
   * ({@code fdatasync}, then his folder's entries). So a reply of a durable route, whatever its
   * status, is a promise: what the call wrote survives a {@code kill -9} of the worker serving
   * him, of the commander, or of both, and comes back with him. A route not declared durable is
   * written behind by the periodic checkpoints ({@code cryo serve --checkpoint}, 1 s by default)
   * and loses at most that period in a crash of its worker (docs/reliability.md).
   *
   * <p>The cost is the wait for the disk, taken together with every durable call of the worker
   * that is waiting at the same time (a group commit): docs/benchmarks.md gives its figures. When
   * the state cannot be forced (a full disk), the call is answered {@code 503} with reason
   * {@code not_durable} instead of its reply: it ran, what it wrote is kept in memory and served,
   * and it is written at the next checkpoint that succeeds; the client must read where it stands
   * before repeating it. The test kit has no disk: it serves durable routes as any other.
   *
   * <p>Filters, login merges and static resources declared through the view are declared as
   * through these routes; a move route is never durable.
   */
  public Routes durable() {
    return durable ? this : new Routes(root);
  }

  /** A {@code GET} route. */
  public Routes get(String path, Handler handler) {
    return add("GET", path, null, handler, false);
  }

  /** A {@code POST} route whose body, if any, the handler reads itself ({@link Call#request()}). */
  public Routes post(String path, Handler handler) {
    return add("POST", path, null, handler, false);
  }

  /** A {@code POST} route whose JSON body is read into a {@code B}; see {@link BodyHandler}. */
  public <B> Routes post(String path, Class<B> body, BodyHandler<B> handler) {
    return add("POST", path, Objects.requireNonNull(body, "body"), handler, false);
  }

  /** A {@code PUT} route whose JSON body is read into a {@code B}. */
  public <B> Routes put(String path, Class<B> body, BodyHandler<B> handler) {
    return add("PUT", path, Objects.requireNonNull(body, "body"), handler, false);
  }

  /** A {@code PATCH} route whose JSON body is read into a {@code B}. */
  public <B> Routes patch(String path, Class<B> body, BodyHandler<B> handler) {
    return add("PATCH", path, Objects.requireNonNull(body, "body"), handler, false);
  }

  /** A {@code DELETE} route. */
  public Routes delete(String path, Handler handler) {
    return add("DELETE", path, null, handler, false);
  }

  /** A route for any method (upper case letters), without a body class. */
  public Routes route(String method, String path, Handler handler) {
    return add(method, path, null, handler, false);
  }

  /** A route for any method whose JSON body is read into a {@code B}. */
  public <B> Routes route(String method, String path, Class<B> body, BodyHandler<B> handler) {
    return add(method, path, Objects.requireNonNull(body, "body"), handler, false);
  }

  /**
   * A move route, {@code POST path}: before a request of this route reaches the application, the
   * runtime moves the user — he is frozen on his worker and woken on another — and the handler runs
   * on the worker serving him after the move, told how it went ({@link Move}); when no other worker
   * can take him the handler runs where he is, with {@link Move#refused()} saying why. A move
   * route's path has no parameters: the runtime recognises it by its exact path.
   *
   * @throws IllegalArgumentException for a path with parameters
   */
  public Routes move(String path, MoveHandler handler) {
    PathPattern pattern = PathPattern.parse(path);
    if (!pattern.isLiteral()) {
      throw new IllegalArgumentException("move route '" + path + "' has parameters; the runtime"
          + " recognises a move route by its exact path: declare it without parameters");
    }
    if (durable) {
      throw new IllegalArgumentException("move route '" + path + "' was declared durable; it was"
          + " not declared: a move freezes the user to disk before the handler runs, so declare"
          + " it on the routes themselves (routes.move)");
    }
    return add("POST", path, null, handler, true);
  }

  /**
   * Declares a step before the handler of every route, after the ones declared before it; see
   * {@link BeforeFilter} and the class comment. A filter may be declared before or after the
   * routes: it applies to all of them.
   *
   * @return these routes
   * @throws IllegalStateException after {@link CryoApplication#routes} returned; nothing declared
   */
  public Routes before(BeforeFilter filter) {
    Objects.requireNonNull(filter, "filter");
    open("a before filter");
    Class<?> asynchronous = asynchronousReturn(filter, "before");
    if (asynchronous != null) {
      throw new IllegalArgumentException("a before filter returns a " + asynchronous.getName()
          + ": a filter is synchronous, like a handler; it was not declared");
    }
    befores.add(filter);
    return this;
  }

  /**
   * Declares a step after the handler of every route, after the ones declared before it; see
   * {@link AfterFilter} and the class comment.
   *
   * @return these routes
   * @throws IllegalStateException after {@link CryoApplication#routes} returned; nothing declared
   */
  public Routes after(AfterFilter filter) {
    Objects.requireNonNull(filter, "filter");
    open("an after filter");
    afters.add(filter);
    return this;
  }

  /**
   * Declares how a guest's state of class {@code type} joins an existing identity's when he logs
   * into it; see {@link LoginMerge}.
   *
   * @return these routes
   * @throws IllegalStateException after {@link CryoApplication#routes} returned; nothing declared
   * @throws IllegalArgumentException when {@code type} has a merge already; nothing declared
   */
  public <T> Routes mergeAtLogin(Class<T> type, LoginMerge<T> merge) {
    open("a login merge");
    merges.declare(type, merge);
    return this;
  }

  /** The login merges. */
  LoginMerges merges() {
    return merges;
  }

  /**
   * Serves the resources under {@code folder} of the application's jar (or classpath) at the URL
   * prefix {@code prefix}, without a user: a request under the prefix enters nobody's turn, makes
   * no guest and wakes nobody; it meets no filter and no route. {@code GET /assets/app.css} with
   * {@code staticResources("/assets", "static/")} reads the resource {@code static/app.css}. Each
   * reply carries a strong {@code ETag} of its content, {@code Cache-Control: public,
   * max-age=600} and its {@code Content-Type}; a folder, a missing file and a path that tries to
   * leave the folder are refused; see {@link StaticResources}. A static prefix wins over the routes
   * for the paths under it.
   *
   * @param prefix the URL prefix: starts with {@code /}, literal segments only, not {@code /} nor
   *     under {@code /_cryo/}; a trailing {@code /} is dropped
   * @param folder the resource folder, relative to the jar's root ({@code "static/"},
   *     {@code "static"}, {@code "web/assets/"}); {@code ""} is refused (the jar's classes would be
   *     served)
   * @return these routes
   * @throws IllegalArgumentException for a prefix or folder as above, or a prefix mounted twice;
   *     nothing declared
   * @throws IllegalStateException after {@link CryoApplication#routes} returned; nothing declared
   */
  public Routes staticResources(String prefix, String folder) {
    return staticResources(prefix, folder, StaticResources.DEFAULT_MAX_AGE);
  }

  /**
   * {@link #staticResources(String, String)} with {@code Cache-Control: public, max-age=}
   * {@code maxAge} (whole seconds; zero makes browsers ask again every time, answered
   * {@code 304} while the file is the same).
   *
   * @return these routes
   * @throws IllegalArgumentException as there, or for a negative {@code maxAge}; nothing declared
   */
  public Routes staticResources(String prefix, String folder, java.time.Duration maxAge) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(folder, "folder");
    Objects.requireNonNull(maxAge, "maxAge");
    open("static resources at " + prefix);
    String at = prefix.endsWith("/") && prefix.length() > 1
        ? prefix.substring(0, prefix.length() - 1) : prefix;
    if (!at.startsWith("/") || at.equals("/") || at.equals("/_cryo") || at.startsWith("/_cryo/")
        || StaticResources.problemOf(at.substring(1)) != null || at.indexOf('{') >= 0
        || at.indexOf('}') >= 0) {
      throw new IllegalArgumentException("static resources are mounted at a literal prefix other"
          + " than / and outside /_cryo/, not '" + prefix + "'; nothing was declared: mount them"
          + " at a prefix such as /assets");
    }
    String inside = folder.startsWith("/") ? folder.substring(1) : folder;
    if (!inside.isEmpty() && !inside.endsWith("/")) {
      inside = inside + "/";
    }
    if (inside.isEmpty() || StaticResources.problemOf(
        inside.substring(0, inside.length() - 1)) != null) {
      throw new IllegalArgumentException("static resources come from a folder of the jar such as"
          + " \"static/\", not '" + folder + "'; nothing was declared: name the folder that"
          + " holds the files (never the jar's root, which holds its classes)");
    }
    if (maxAge.isNegative()) {
      throw new IllegalArgumentException("a max-age is zero or more, not " + maxAge
          + "; nothing was declared");
    }
    for (StaticResources.Mount mount : mounts) {
      if (mount.prefix().equals(at)) {
        throw new IllegalArgumentException("static resources are mounted at " + at + " twice;"
            + " nothing was declared: mount one folder per prefix");
      }
    }
    mounts.add(new StaticResources.Mount(at, inside, maxAge));
    return this;
  }

  /** The static mounts, in declaration order. */
  List<StaticResources.Mount> mounts() {
    return mounts;
  }

  /** The before filters, in declaration order. */
  List<BeforeFilter> befores() {
    return befores;
  }

  /** The after filters, in declaration order. */
  List<AfterFilter> afters() {
    return afters;
  }

  private void open(String what) {
    if (root.sealed) {
      throw new IllegalStateException("routes and filters are declared in"
          + " CryoApplication.routes only; " + what + " came later and was not declared");
    }
  }

  private Routes add(String method, String path, Class<?> body, Object handler, boolean move) {
    if (root.sealed) {
      throw new IllegalStateException("routes are declared in CryoApplication.routes only; route "
          + method + " " + path + " came later and was not declared");
    }
    Objects.requireNonNull(handler, "handler");
    String verb = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
    Class<?> asynchronous = asynchronousReturn(handler);
    if (asynchronous != null) {
      throw new IllegalArgumentException(asynchronousRefusal(verb + " " + path,
          asynchronous.getName()) + "; it was not declared");
    }
    if (!verb.matches("[A-Z]+")) {
      throw new IllegalArgumentException("an HTTP method is letters only, got '" + method + "'");
    }
    PathPattern pattern = PathPattern.parse(path);
    for (Route route : routes) {
      if (route.method().equals(verb) && route.pattern().sameShape(pattern)) {
        throw new IllegalArgumentException("route " + verb + " " + path + " repeats " + verb + " "
            + route.pattern() + ", declared before it; it was not declared: declare each method"
            + " and path once");
      }
    }
    routes.add(new Route(verb, pattern, body, handler, move, routes.size(), durable));
    return this;
  }

  /**
   * The asynchronous type ({@link CompletionStage}, {@link Future}) a handler's class declares its
   * {@code handle} method to return, or null: a handler class says so in its signature; a lambda
   * does not (its method returns {@code Object}), and is caught when it returns one
   * ({@link Dispatcher#serve}).
   */
  static Class<?> asynchronousReturn(Object handler) {
    return asynchronousReturn(handler, "handle");
  }

  private static Class<?> asynchronousReturn(Object handler, String name) {
    for (Method method : handler.getClass().getMethods()) {
      if (method.getName().equals(name) && !method.isBridge()
          && isAsynchronous(method.getReturnType())) {
        return method.getReturnType();
      }
    }
    return null;
  }

  /** Whether {@code type} is a {@link CompletionStage} or a {@link Future}. */
  static boolean isAsynchronous(Class<?> type) {
    return CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type);
  }

  /** Why an asynchronous handler is refused, for {@code route}: what happened and what to do. */
  static String asynchronousRefusal(String route, String type) {
    return "the handler of route " + route + " returns a " + type + ": a handler is synchronous —"
        + " the user's turn, and his call, end when it returns, so what the future does later"
        + " would run outside his turn and its result would never be his reply: return the value"
        + " itself (wait for the future inside the handler if it must run elsewhere)";
  }

  /** Ends the declarations. */
  void seal() {
    sealed = true;
  }

  /** A route found for a request, with its path's parameters. */
  record Found(Route route, Map<String, String> parameters) {}

  /**
   * The route serving {@code method path}: its {@link Found}, else null; {@code allowed} receives
   * the methods of the routes matching the path when none matches the method.
   */
  Found find(String method, String path, List<String> allowed) {
    String verb = method.equals("HEAD") ? "GET" : method;
    Found best = null;
    for (Route route : routes.stream()
        .sorted(Comparator.comparingInt((Route r) -> -r.pattern().literalCount())
            .thenComparingInt(Route::order))
        .toList()) {
      Map<String, String> parameters = route.pattern().match(path);
      if (parameters == null) {
        continue;
      }
      if (route.method().equals(verb)) {
        if (best == null) {
          best = new Found(route, parameters);
        }
      } else if (!allowed.contains(route.method())) {
        allowed.add(route.method());
      }
    }
    return best;
  }

  /** The move routes, as {@code [METHOD, PATH]} pairs in declaration order. */
  List<List<String>> moves() {
    List<List<String>> out = new ArrayList<>();
    for (Route route : routes) {
      if (route.move()) {
        out.add(List.of(route.method(), route.pattern().toString()));
      }
    }
    return List.copyOf(out);
  }

  /** How many routes were declared. */
  int size() {
    return routes.size();
  }
}
