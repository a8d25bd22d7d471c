package dev.cryo.app;

/**
 * What a handler reaches during one call: the request, the user it is served for, his typed state,
 * his pages, and login.
 *
 * <p>A call comes from a connection (a browser, a device, known by its cookie); the connection
 * belongs to a user — a guest until it logs in. Pages (tabs) hang from the connection: a page is
 * opened by {@link #openPage()} and named in later requests by its id; a call reaches only the
 * pages of its own connection.
 *
 * <p>Valid during its call only, on any thread the handler uses while the call runs; the user's
 * turn lasts until the handler — and the route's filters ({@link Routes#before},
 * {@link Routes#after}), which share this call — returned (or threw). From then on every method of
 * the call, and of
 * the {@link State}s it gave, throws an {@link IllegalStateException} naming the route, and reaches
 * nothing: a write can never run outside its user's turn. A method in progress on another thread
 * when the handler returns finishes before the reply is made.
 */
public interface Call {

  /** The request being served. */
  Request request();

  /**
   * The value of a path parameter of the route ({@code {id}} in {@code /items/{id}}), decoded.
   *
   * @throws IllegalArgumentException when the route's pattern has no such parameter
   */
  String pathParameter(String name);

  /** The first value of a query parameter, decoded, or null; see {@link Request#queryParameter}. */
  default String query(String name) {
    return request().queryParameter(name);
  }

  /** The user the call is served for: the connection's owner (a guest's name until a login). */
  String user();

  /** Whether {@link #user()} is the connection's guest (nobody logged in). */
  boolean isGuest();

  /** The name of the worker serving the call. */
  String worker();

  /**
   * The header that carries a request's id from the front to the worker and back to the client:
   * {@value}. The front mints the id for every request and every socket call, never takes one
   * from the client, and answers with it (docs/guide.md, "Logs").
   */
  String REQUEST_ID_HEADER = "Cryo-Request-Id";

  /**
   * The id of this request: the one the front minted (its {@value #REQUEST_ID_HEADER} header, which
   * the reply carries back to the client), or one minted for the call when it came without (a
   * test kit's request, a worker alone). Short, URL-safe, unique per request; the front's lines
   * about the request, the event log's lines it caused, and {@link #log()}'s lines name it.
   */
  String requestId();

  /**
   * The application's logger for this call: a {@link System.Logger} named after the application's
   * class whose every line begins {@code user=<user> request=<requestId>: } — where cryo's own
   * logging goes (in {@code cryo serve}, the worker's log). The user is read at each line (a
   * {@link #login} changes it); the logger, once taken, may be kept and used after the call has
   * ended (by work the handler started), naming the call's last user.
   */
  System.Logger log();

  /**
   * The user's state of class {@code type}: it follows him across his connections, and a guest's
   * into his first identity. Stored under the class's {@link StateKey} or simple name (then with
   * the class that wrote it recorded beside it: see {@link StateKey}).
   *
   * @throws StateException {@link StateException.Reason#BAD_STATE_CLASS} for a class that cannot
   *     be state (a JDK type, an interface) or shares its storage name with another (refused by
   *     the state's methods when the other one wrote the value, in any instance of the
   *     application)
   */
  <T> State<T> user(Class<T> type);

  /** The connection's state of class {@code type}; as {@link #user(Class)}. */
  <T> State<T> connection(Class<T> type);

  /**
   * The state of class {@code type} of page {@code pageId}, a page of this call's connection.
   *
   * @throws StateException {@link StateException.Reason#UNKNOWN_PAGE} (answered 404 when not
   *     caught) when the page is not this connection's, and as {@link #user(Class)}
   */
  <T> State<T> page(String pageId, Class<T> type);

  /** Whether {@code pageId} names a page of this call's connection. */
  boolean hasPage(String pageId);

  /**
   * The most pages one connection may have open at once: {@value}. A page lives until the
   * application closes it ({@link #closePage}) or its connection or user is dropped, so a client
   * opening page after page (a reload each, or a hostile loop) would otherwise fill the worker.
   */
  int MAX_PAGES_PER_CONNECTION = 256;

  /**
   * Opens a new page on this call's connection.
   *
   * @return its id, unique across the run
   * @throws Refusal {@code 429 too_many_pages} when the connection has
   *     {@link #MAX_PAGES_PER_CONNECTION} pages open already: nothing was opened; close one
   *     ({@link #pages}, {@link #closePage}) and open again
   */
  String openPage();

  /**
   * The pages of this call's connection: the ids {@link #openPage()} returned that are still open,
   * sorted by id (an order that says nothing of when they were opened). Each id is all an
   * application needs to address the page: {@link #page} for its state, {@link #pushToPage} for
   * its browser sockets, {@link #closePage} to close it.
   *
   * @return an immutable snapshot; empty for a connection without pages
   */
  java.util.List<String> pages();

  /**
   * Closes page {@code pageId} of this call's connection for good, from the server, as if its tab
   * had gone: its state is dropped, {@link CryoApplication#onPageClosed} runs before this method
   * returns (in this call's turn; a failure of the hook is logged and the page stays closed), and
   * from then on the page is unknown — {@link #page} throws
   * {@link StateException.Reason#UNKNOWN_PAGE} (a call that does not catch it is answered
   * {@code 404 unknown_page}), {@link #hasPage} is false, a push to it reaches nothing. The
   * connection stays, with no pages when it was its last, and so does its user. The page's browser
   * sockets are told as the runtime learns of the close: one that had only this page is closed
   * with {@code 4404 page_closed} once its calls in flight are answered (this call among them when
   * it came over that socket), and the browser client does not reconnect it (docs/app.md,
   * docs/client.md).
   *
   * @return whether the page was open on this connection; false (a page of another connection,
   *     an unknown or closed one): nothing changed
   */
  boolean closePage(String pageId);

  /**
   * Pushes {@code message} (written as JSON, like a reply) to the browser sockets bound to page
   * {@code pageId} — any page of the run, this connection's or another's (a frozen user's page
   * too: its socket is in the front). The page's script receives {@code {"type": "push", "page":
   * pageId, "data": message}} (docs/socket.md). Blocks for one round trip to the commander, never
   * for a browser.
   *
   * @return whether it was written to a socket ({@link Pushed#delivered()})
   * @throws IllegalArgumentException when {@code message} cannot be written as JSON; nothing sent
   */
  Pushed pushToPage(String pageId, Object message);

  /** Pushes {@code message} to every page of this call's connection; as {@link #pushToPage}. */
  Pushed pushToConnection(Object message);

  /**
   * Pushes {@code message} to every page of every connection of this call's user (all his tabs,
   * on all his browsers); as {@link #pushToPage}.
   */
  Pushed pushToUser(Object message);

  /**
   * Logs this call's connection into {@code user}. Where that identity lives is the runtime's
   * business: here ({@link LoginResult#HERE}: the call goes on as the identity) or elsewhere
   * ({@link LoginResult#ELSEWHERE}: the connection goes to it when this call ends). A guest's user
   * state follows him into his first identity when nobody holds that identity; an identity that
   * exists keeps its own, and a guest logging into it from his last connection leaves his user
   * state to the application's login merges ({@link Routes#mergeAtLogin}: each declared class's
   * two values become the identity's one), run in the identity's turn — before this method returns
   * {@link LoginResult#HERE}, else at the identity's next call. Pages stay with their connection,
   * so their state comes along either way.
   *
   * @param user the identity: non-blank, not a name the runtime reserves for guests
   * @return how it went
   * @throws IllegalArgumentException for a blank or reserved name; nothing changed
   */
  LoginResult login(String user);

  // ---- the end of a connection, of a user ----------------------------------------------------

  /**
   * Logs this call's connection out: once the call ends, the connection leaves its user for good,
   * with its pages and their state and its own state ({@link CryoApplication#onPageClosed} runs for
   * its pages); the user stays, with his state and his other connections (a guest goes with his
   * last connection: nobody could reach him again). The reply tells the browser to drop its
   * cookie, and the cookie it had is retired at once: from the moment {@code logout()} returns, a
   * request carrying it — from this browser, or from anybody who copied it — reaches nothing of
   * this user: it is served as a new visitor's, a new guest with a new cookie. Until the handler
   * returns the call goes on as before ({@link #user()}, the state).
   *
   * <p>This is the only way to end a connection: a {@code Set-Cookie} of the runtime's cookie
   * ({@code cryo_connection}) in a reply never reaches the browser (the front removes it).
   *
   * @throws IllegalStateException when this call already logged out or forgot its user; nothing
   *     changed
   */
  void logout();

  /**
   * Forgets the call's user everywhere: once the call ends his state, every connection of his and
   * their pages are dropped from memory and from the runtime's maps ({@link
   * CryoApplication#onPageClosed} runs for the pages), and what the freezer keeps of him goes with
   * them; the cookie of this call is retired at once as by {@link #logout()}, and every other
   * browser of his is served as a new visitor's (a new guest with a new cookie) at its next
   * request. A later login as the same name starts an empty user. Until the handler returns the
   * call goes on as before; what it writes meanwhile is dropped with him.
   *
   * @throws IllegalStateException when this call already logged out or forgot its user; nothing
   *     changed
   */
  void forget();
}
