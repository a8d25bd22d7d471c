package dev.cryo.app;

/**
 * An application written on cryo: its routes and, optionally, its hooks.
 *
 * <pre>{@code
 * public final class Notes implements CryoApplication {
 *   record Account(long visits) {}                       // per user, frozen as plain data
 *   record Sheet(List<String> lines) {}                  // per page
 *   record Add(String page, String text) {}              // a request body, read by Jackson
 *
 *   @Override public void routes(Routes routes) {
 *     routes.post("/api/notes", Add.class, (call, add) -> {
 *       Sheet sheet = call.page(add.page(), Sheet.class)
 *           .update(s -> new Sheet(append(s.lines(), add.text())));
 *       call.user(Account.class).update(a -> new Account(a.visits() + 1));
 *       return sheet;                                    // 200, JSON
 *     });
 *   }
 * }
 * }</pre>
 *
 * <h2>What the runtime promises</h2>
 *
 * <ul>
 *   <li><b>One turn per user.</b> The calls of one user run one at a time, in arrival order;
 *       different users run in parallel. A handler needs no lock for the state of its user, his
 *       connections and his pages.
 *   <li><b>State is plain data.</b> What a handler keeps between calls lives in {@link State}s,
 *       written as plain data and read back into a fresh object at every read. An instance of the
 *       application may be replaced at any moment between two calls of a user (he is frozen and
 *       woken in another process): fields of the application hold only what its hooks can rebuild.
 *   <li><b>Lifecycle</b>: {@link #onStart} once per instance before its first call, with the
 *       application's configuration ({@link AppContext}); {@link #onStop} when its worker quits.
 *   <li><b>Hooks</b> run in the user's turn: {@link #onWake} before his first call in this instance
 *       of the application, {@link #onFreeze} before he leaves it, {@link #onPageClosed} after one
 *       of his pages closed for good.
 * </ul>
 *
 * <p>The class must be public with a public no-argument constructor: the runtime makes one instance
 * per worker process ({@code --app CLASS}). {@link #routes} is called once, before the first call.
 * The instance serves many users at once, on many threads: what it keeps in its own fields must be
 * thread-safe.
 */
public interface CryoApplication {

  /**
   * Declares the application's routes. Called once per instance, before any call, on one thread.
   *
   * @param routes where to declare them
   */
  void routes(Routes routes);

  /**
   * Called once per instance — once per worker process — after {@link #routes} and before the
   * instance serves its first call: open what the instance needs for its life (a pool, a client),
   * read its configuration ({@link AppContext#config()}). A throw fails the worker's start at once,
   * as an application that cannot be loaded does: {@code cryo serve} does not start and
   * {@code cryo reload} stops before the old workers are touched, each naming the cause; no second
   * attempt is made. The default does nothing.
   *
   * @param context the worker's name and the application's configuration
   * @throws Exception anything; see above
   */
  default void onStart(AppContext context) throws Exception {}

  /**
   * Called once per instance when its worker quits as planned (a drain, a reload, a stop, a
   * shrink), after its users were frozen and before the process ends: close what
   * {@link #onStart} opened. Not called when the process dies (a crash, {@code kill -9}). A throw is
   * logged. The default does nothing.
   *
   * @throws Exception anything; logged
   */
  default void onStop() throws Exception {}

  /**
   * Called in the user's turn before his first call served by this instance since he arrived here:
   * born, woken from the freezer, or moved in from another worker. Rebuild transient state (caches
   * kept outside {@link State}s) here. A throw fails that call (answered 500, logged) and the hook
   * runs again before the next one. The default does nothing.
   *
   * @param stay the user and his state
   * @throws Exception anything; see above
   */
  default void onWake(Stay stay) throws Exception {}

  /**
   * Called before the user is frozen out of this instance, when none of his calls is in flight;
   * write into his {@link State}s what transient state must survive. The freeze happens whatever
   * the hook does: a throw is logged and the user is frozen with his state as it is. If the freeze
   * itself fails the user stays here, and {@link #onWake} runs again before his next call. The
   * default does nothing.
   *
   * @param stay the user and his state
   * @param reason why he leaves
   * @throws Exception anything; logged
   */
  default void onFreeze(Stay stay, FreezeReason reason) throws Exception {}

  /**
   * Called after one of the user's pages was closed for good (the page, its connection or the user
   * was dropped); its state is gone. Not called when a page leaves by a freeze or a move: it comes
   * back with its user. {@link Stay#user(Class)} is refused ({@link StateException.Reason#GONE})
   * when the user left with the page. A throw is logged. The default does nothing.
   *
   * @param stay the user
   * @param pageId the page that closed
   * @throws Exception anything; logged
   */
  default void onPageClosed(Stay stay, String pageId) throws Exception {}

  /**
   * The version of the state this application writes, stamped on every parcel its users are frozen
   * into; at least 1. The default, 1, is what a parcel without a stamp was written by.
   *
   * <p>Most changes need no new version: what a state class no longer has is ignored when read,
   * what it gained is defaulted. Raise the version when the stored form changes in a way those
   * rules do not cover (a field renamed, split, or given another meaning); {@link #upgrade} then
   * brings what older versions wrote up to this one. A parcel stamped with a newer version than
   * this one (an older application deployed over a newer one's users) is not read: it stays in
   * the freezer untouched, and the user is answered {@code 503} with reason
   * {@code unreadable_parcel} until a version that reads it runs.
   *
   * <p>Called once, when the application is loaded; must return the same value every time.
   *
   * @return the state version, {@code >= 1}
   */
  default int stateVersion() {
    return 1;
  }

  /**
   * Brings one piece of state written under an older {@link #stateVersion()} up to this one. Called
   * when a user frozen by an older version wakes here, before his rows are rebuilt and before
   * {@link #onWake}: once per state key of his user, of each of his connections and of each of
   * their pages, with the version that wrote it (not stepwise: a version-1 value reaches a
   * version-3 application once, with {@code version() == 1}). Runs on a worker's disk thread
   * while the user's semaphore is held; it must be quick and must not reach other users.
   *
   * <p>The return value is stored under the same key: a state object (a record of the running
   * version's, checked as {@link State#set} checks it), plain data (a {@code Map}), or null to drop
   * that state. A throw — or a value that cannot be frozen — means this version cannot read the
   * user: nothing of his is changed or dropped, his parcels stay in the freezer as they were
   * (shown as unreadable by {@code cryo freezer ls}), and his request is answered {@code 503} with
   * reason {@code unreadable_parcel}. The default keeps every value as stored, which the rules of
   * {@link State} then read.
   *
   * @param stored the state as stored, with the version that wrote it
   * @return the value to store under {@link StoredState#key()}, or null to drop it
   * @throws Exception when this version cannot read it; see above
   */
  default Object upgrade(StoredState stored) throws Exception {
    return stored.value();
  }
}
