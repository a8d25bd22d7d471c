package dev.cryo.register;

import dev.cryo.register.RegisterException.Reason;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The register of registers of a worker: it hosts named {@link Register}s, and holds the three
 * primary ones — the live users, connections and pages — together with the ownership chain that
 * ties them: page → connection → user.
 *
 * <pre>{@code
 * RegisterRegistry registry = new RegisterRegistry();
 * registry.newPage("p1", "guest_c1", "c1");         // c1 born guest, with its guest user
 * registry.pageUser("p1");                           // "guest_c1"
 * registry.changeConnectionUser("c1", "anna", Map.of()); // the login: c1 relabelled, not re-keyed
 * registry.pageUser("p1");                           // "anna", who inherited the guest's store
 * registry.dropUser("anna");                         // anna, c1 and p1 leave in one step
 * }</pre>
 *
 * <h2>The registers</h2>
 *
 * <p>{@link #userItems()} ({@value #USER_ITEMS}, keyed by user), {@link #connectionItems()}
 * ({@value #CONNECTION_ITEMS}, keyed by connection id) and {@link #pageItems()} ({@value
 * #PAGE_ITEMS}, keyed by page id, indexed by {@value PageRow#CONNECTION_ID} and {@value
 * PageRow#ROOT_PAGE_ID}). The {@code _items} names are ratified: the name says the map and the
 * level. {@link #newRegister} creates, hosts and returns any other register; there is no getter by
 * name, the caller keeps the reference.
 *
 * <h2>The ownership chain lives in the rows</h2>
 *
 * <p>Downwards as sets carried by the rows — a user's {@value UserRow#CONNECTIONS}, a connection's
 * {@value ConnectionRow#PAGES} — and upwards as the parent key each child holds — a page's
 * {@value PageRow#CONNECTION_ID}, a connection's {@value ConnectionRow#USER}. Every lifecycle
 * operation writes both directions in one atomic step, and only the lifecycle writes them (a caller
 * passing a chain field is refused, and the primary registers refuse direct creation and drops). A
 * page stores no user: {@link #pageUser} derives it by walking up, so it cannot go stale.
 *
 * <h2>Lifecycle</h2>
 *
 * <ul>
 *   <li>Bringing into being climbs the chain: {@link #newPage} creates the connection when unseen,
 *       and the user when unseen; {@link #newConnection} creates the user when unseen.
 *   <li>Demolition climbs once, from the originating drop: {@link #dropPage} takes the connection
 *       with its last page, {@link #dropConnection} takes the user with its last connection; the
 *       descending drops of a cascade never climb back up the branch being torn down.
 *   <li>The login ({@link #changeConnectionUser}) relabels a live connection; nothing is re-keyed
 *       except the entry of a guest claiming its first real identity, which is transferred whole,
 *       store included.
 * </ul>
 *
 * <h2>Births</h2>
 *
 * <p>Every user, connection and page row is born stamped with the registry's clock in
 * {@value ChainRow#LAST_REFRESH_TS} (a supplied {@link java.time.Instant} is honoured: a moved row
 * keeps the stamp it travelled with), with its own re-entrant lock ({@link Row#lock()}), and with a
 * live store in {@value ChainRow#STORE} born of {@link #newStore()} (a supplied store is honoured:
 * a moved row arrives with its own).
 *
 * <h2>Extension</h2>
 *
 * <p>A consumer subclasses the registry and overrides: the store factory {@link #newStore()}; the
 * row factories {@link #newUserRow}, {@link #newConnectionRow}, {@link #newPageRow} to pair its own
 * fields with the chain. The two seams of a page's life — after its birth, before it leaves (or
 * before its store is copied for a parcel) — are a {@link PageSeams} object, given to
 * {@link #RegisterRegistry(Clock, PageSeams)} and told by {@link #seams()}; a subclass built
 * without one has its protected {@link #subscribePageStore} and {@link #detachPage} as its seams.
 * All of them are called with no structure lock held, on the thread of the lifecycle call.
 *
 * <h2>Inside</h2>
 *
 * <p>This class is the facade. The three protocols live apart, package-private: {@code PageBirth}
 * (the births), {@code Login} (the relabelling), {@code Demolition} (the drops), sharing the
 * registers, the structure lock, the clock and the seams through one {@code Chain}.
 *
 * <h2>Concurrency</h2>
 *
 * <p>Thread-safe; the rules are in the package documentation. In short: the three primary registers
 * share one structure lock, so every lifecycle operation — cascades included — becomes visible
 * whole or not at all; rows are accessed under their own locks, in parallel; a row being demolished
 * is refused to other lifecycle calls with the retryable {@link Reason#BEING_DROPPED}.
 */
public class RegisterRegistry {

  /**
   * The prefix that names an anonymous user: a connection born without a user belongs to
   * {@code guest_<connection id>}. Reserved: nobody logs in as a guest.
   */
  public static final String GUEST_PREFIX = "guest_";

  /** The ratified name of the register of users. */
  public static final String USER_ITEMS = "user_items";

  /** The ratified name of the register of connections. */
  public static final String CONNECTION_ITEMS = "connection_items";

  /** The ratified name of the register of pages. */
  public static final String PAGE_ITEMS = "page_items";

  /** Stands for "the protected seams of a subclass, none for this class"; never run. */
  private static final PageSeams OWN_SEAMS = PageSeams.of(page -> { }, page -> { });

  private final Chain chain;
  private final StructureLock structure;
  private final Register<UserRow> users;
  private final Register<ConnectionRow> connections;
  private final Register<PageRow> pages;
  private final PageBirth births;
  private final Login login;
  private final ConcurrentHashMap<String, Register<?>> hosted = new ConcurrentHashMap<>();

  /**
   * Creates a registry stamping rows with the system clock (UTC); its seams are as
   * {@link #RegisterRegistry(Clock)} says.
   */
  public RegisterRegistry() {
    this(Clock.systemUTC());
  }

  /**
   * Creates a registry stamping rows with {@code clock}. A registry of this very class has no
   * seams ({@link PageSeams#none()}); a subclass built through this constructor has its two
   * protected seams, {@link #subscribePageStore} and {@link #detachPage}, both as seams — whether
   * it overrides them or not, for nothing detects overrides. A subclass that overrides neither
   * passes {@link PageSeams#none()} to {@link #RegisterRegistry(Clock, PageSeams)}, so that its
   * drops stay single steps that lock no page.
   *
   * @param clock the server's clock, read for {@value ChainRow#LAST_REFRESH_TS} at every birth
   */
  public RegisterRegistry(Clock clock) {
    this(clock, OWN_SEAMS);
  }

  /**
   * Creates a registry stamping rows with {@code clock}, whose seams are exactly {@code seams}: the
   * protected {@link #subscribePageStore} and {@link #detachPage} are then never called.
   *
   * @param clock the server's clock, read for {@value ChainRow#LAST_REFRESH_TS} at every birth
   * @param seams the seams of every page's life; {@link PageSeams#none()} for none
   */
  @SuppressWarnings("this-escape") // the row factories and seams are only called after construction
  public RegisterRegistry(Clock clock, PageSeams seams) {
    Objects.requireNonNull(clock, "clock");
    PageSeams chosen = Objects.requireNonNull(seams, "seams");
    if (chosen == OWN_SEAMS) {
      chosen = getClass() == RegisterRegistry.class ? PageSeams.none()
          : PageSeams.of(this::subscribePageStore, this::detachPage);
    }
    this.chain = new Chain(this, clock, chosen);
    this.structure = chain.structure;
    this.users = chain.users;
    this.connections = chain.connections;
    this.pages = chain.pages;
    this.births = new PageBirth(chain);
    this.login = new Login(chain);
    hosted.put(USER_ITEMS, users);
    hosted.put(CONNECTION_ITEMS, connections);
    hosted.put(PAGE_ITEMS, pages);
  }

  // ---- registers ------------------------------------------------------------------------------

  /** The primary register of users, {@value #USER_ITEMS}, keyed by user. */
  public final Register<UserRow> userItems() {
    return users;
  }

  /** The primary register of connections, {@value #CONNECTION_ITEMS}, keyed by connection id. */
  public final Register<ConnectionRow> connectionItems() {
    return connections;
  }

  /**
   * The primary register of pages, {@value #PAGE_ITEMS}, keyed by page id and indexed by
   * {@value PageRow#CONNECTION_ID} and {@value PageRow#ROOT_PAGE_ID}.
   */
  public final Register<PageRow> pageItems() {
    return pages;
  }

  /**
   * Creates a register of plain {@link Row}s named {@code name}, hosts it and returns it. The
   * returned reference is the only way to reach it: there is no getter by name.
   *
   * @throws RegisterException {@link Reason#DUPLICATE_REGISTER} when {@code name} is hosted, the
   *     three primary names included
   */
  public final Register<Row> newRegister(String name, String... indexedFields) {
    return newRegister(name, Row::new, indexedFields);
  }

  /**
   * Creates a register named {@code name} whose rows are built by {@code rowFactory}, hosts it and
   * returns it. The register has its own structure lock, independent of the chain's.
   *
   * @throws RegisterException {@link Reason#DUPLICATE_REGISTER} when {@code name} is hosted, the
   *     three primary names included
   */
  public final <R extends Row> Register<R> newRegister(String name,
      Function<String, ? extends R> rowFactory, String... indexedFields) {
    Objects.requireNonNull(name, "name");
    Register<R> register = Register.of(name, rowFactory, indexedFields);
    if (hosted.putIfAbsent(name, register) != null) {
      throw new RegisterException(Reason.DUPLICATE_REGISTER, name, name,
          "a register named " + name + " is already hosted"
              + (isPrimary(name) ? " (it is one of the three primary registers)" : "")
              + "; nothing was changed: choose another name, or keep the reference you were given");
    }
    return register;
  }

  /**
   * Adds an index on {@code field} to the hosted register named {@code registerName} (idempotent,
   * built from the rows already there).
   *
   * @throws RegisterException {@link Reason#UNKNOWN_REGISTER} when no such register is hosted, and
   *     as {@link Register#addIndex} does
   */
  public final void addIndex(String registerName, String field) {
    Register<?> register = hosted.get(Objects.requireNonNull(registerName, "registerName"));
    if (register == null) {
      throw new RegisterException(Reason.UNKNOWN_REGISTER, null, registerName,
          "no register named " + registerName + " is hosted (hosted: " + hosted.keySet()
              + "); nothing was changed: create it with newRegister first");
    }
    register.addIndex(field);
  }

  // ---- extension points ---------------------------------------------------------------------

  /**
   * The store factory: the birth of every row's live store. The default is an empty {@link Store}.
   * A consumer whose rows hold its own store type overrides this alone; nothing else names the
   * concrete class. Called on the lifecycle call's thread with no lock held; in a lost race it may
   * be called for a row that is then not born, and its store is discarded.
   */
  protected Object newStore() {
    return new Store();
  }

  /**
   * Builds the (empty, unregistered) entry of a user; override to pair your own row class with the
   * chain. Called with no lock held; must return a new row carrying {@code user}.
   */
  protected UserRow newUserRow(String user) {
    return new UserRow(user);
  }

  /** Builds the row of a connection; as {@link #newUserRow}. */
  protected ConnectionRow newConnectionRow(String connectionId) {
    return new ConnectionRow(connectionId);
  }

  /** Builds the row of a page; as {@link #newUserRow}. */
  protected PageRow newPageRow(String pageId) {
    return new PageRow(pageId);
  }

  /**
   * The seams of this registry's pages: what it runs after a page's birth and before a page leaves.
   * {@link PageSeams#detaches()} says whether its drops lock the pages they take; a consumer calls
   * {@link PageSeams#detach} itself, holding the page's lock, before copying a page's store for a
   * parcel.
   */
  public final PageSeams seams() {
    return chain.seams;
  }

  /**
   * Attaches to a page's store whatever must capture its writes: nothing here. The subscribe seam
   * of a subclass built without a {@link PageSeams} object (see {@link #RegisterRegistry(Clock)});
   * never called on a registry built with one, whose {@link PageSeams#subscribe} seam runs instead,
   * under this same contract.
   *
   * <p>Called by {@link #newPage} right after the birth — the page, its connection and its user are
   * registered and {@link #pageUser} answers — on the creating thread, holding the new page's lock
   * (so nobody reaches the page's store before this returns) and no structure lock. It may lock the
   * page's connection and user (upwards, as the package's lock order says). If it throws, the page
   * stays registered and the exception reaches the caller of {@code newPage}.
   *
   * <p>Called again, under the page's lock, for a page {@link #detachPage detached} by a demolition
   * that a later page's detach seam then stopped: the page is still registered and marked as being
   * dropped until every such page is subscribed again.
   */
  protected void subscribePageStore(PageRow page) {}

  /**
   * Stops whatever captures into a page: nothing here. The detach seam of a subclass built without
   * a {@link PageSeams} object (see {@link #RegisterRegistry(Clock)}); never called on a registry
   * built with one, whose {@link PageSeams#detach} seam runs instead, under this same contract.
   *
   * <p>Called exactly once for every page leaving the registry, before it leaves: the page is still
   * registered, marked as being dropped (other lifecycle calls on it are refused as
   * {@link Reason#BEING_DROPPED}), and this runs on the dropping thread holding the page's lock and
   * no structure lock; it may lock the page's connection and user. A consumer also runs it itself
   * ({@code seams().detach(page)}) before copying a page's store for a parcel. If it throws, the demolition stops and every row it
   * had claimed stays registered, and each page it had already detached is subscribed again
   * ({@link #subscribePageStore}, under the page's lock, before the claim is released) so that no
   * page lives on detached; the seam's exception reaches the caller of the drop.
   */
  protected void detachPage(PageRow page) {}

  // ---- lifecycle: births --------------------------------------------------------------------

  /** Creates the entry of {@code user} with no fields of the caller's; see {@link #newUser(String, Map)}. */
  public final UserRow newUser(String user) {
    return newUser(user, Map.of());
  }

  /**
   * Creates the entry of {@code user} in {@value #USER_ITEMS}, with an empty set of connections
   * (filled by the lifecycle, never by a caller), a live store unless {@code fields} supplies one,
   * and stamped unless {@code fields} supplies {@value ChainRow#LAST_REFRESH_TS}.
   *
   * @throws RegisterException {@link Reason#DUPLICATE_KEY} when the user has an entry,
   *     {@link Reason#CHAIN_FIELD} when {@code fields} holds {@value UserRow#CONNECTIONS},
   *     {@link Reason#RESERVED_FIELD}, {@link Reason#WRONG_TYPE}
   */
  public final UserRow newUser(String user, Map<String, ?> fields) {
    return births.newUser(user, fields);
  }

  /** Creates a guest connection; see {@link #newConnection(String, String, Map)}. */
  public final ConnectionRow newConnection(String connectionId) {
    return newConnection(connectionId, null, Map.of());
  }

  /**
   * Creates the row of {@code connectionId}, owned by {@code user} — or, when {@code user} is null,
   * born guest: owned by {@code guest_<connection id>}, whose entry is brought into being with it, a
   * user like any other with its own live store. A consumer minting its own {@code guest_} names
   * passes them explicitly. The owner's entry is created when unseen. The row is born with an empty
   * set of pages, a live store (server-side only) unless supplied, stamped unless supplied, and its
   * id joins the owner's connections: both directions of the edge in one step.
   *
   * @throws RegisterException {@link Reason#DUPLICATE_KEY} when the connection has a row,
   *     {@link Reason#BEING_DROPPED} when the owner is being dropped, {@link Reason#CHAIN_FIELD}
   *     when {@code fields} holds {@value ConnectionRow#USER} or {@value ConnectionRow#PAGES},
   *     {@link Reason#RESERVED_FIELD}, {@link Reason#WRONG_TYPE}
   */
  public final ConnectionRow newConnection(String connectionId, String user, Map<String, ?> fields) {
    return births.newConnection(connectionId, user, fields);
  }

  /** Creates a root page with no fields of the caller's; see {@link #newPage(String, String, String, Map)}. */
  public final PageRow newPage(String pageId, String user, String connectionId) {
    return newPage(pageId, user, connectionId, Map.of());
  }

  /**
   * Creates the row of a page hanging from {@code connectionId}, with the root conventions of a
   * page forest: a page without {@value PageRow#PARENT_PAGE_ID} is a root and, unless told
   * otherwise, its own root ({@code keysBy(root_page_id, X)} returns a whole tree, root included); a
   * child without {@value PageRow#ROOT_PAGE_ID} is refused.
   *
   * <p>The chain is brought into being from the bottom up: the connection when unseen (owned by
   * {@code user}), and with it the user when unseen. {@code user} drives that creation only and is
   * never stored on the page; when the connection exists, it must be its owner. The page id joins its
   * connection's pages in the same step. Recognised {@code fields}: {@value PageRow#ROOT_PAGE_ID},
   * {@value PageRow#PARENT_PAGE_ID}, {@value PageRow#AVATAR_KEY} (default
   * {@value PageRow#ROOT_AVATAR_KEY}), {@value PageRow#DATA} (default null), {@value ChainRow#STORE}
   * (default: a new store), {@value ChainRow#LAST_REFRESH_TS} (default: now); every other field
   * passes through verbatim. After the birth, the subscribe seam runs ({@link #seams()}).
   *
   * @throws RegisterException {@link Reason#DUPLICATE_KEY} when the page exists,
   *     {@link Reason#CHILD_WITHOUT_ROOT}, {@link Reason#USER_MISMATCH} when the connection exists
   *     and belongs to another user, {@link Reason#BEING_DROPPED} when the connection or the user is
   *     being dropped, {@link Reason#CHAIN_FIELD} for {@value PageRow#CONNECTION_ID} or
   *     {@value ConnectionRow#USER} among the fields, {@link Reason#RESERVED_FIELD},
   *     {@link Reason#WRONG_TYPE}; nothing was created
   */
  public final PageRow newPage(String pageId, String user, String connectionId,
      Map<String, ?> fields) {
    return births.newPage(pageId, user, connectionId, fields);
  }

  // ---- lifecycle: reads and updates ---------------------------------------------------------

  /**
   * The user a page belongs to, derived by walking up: page → its connection → that connection's
   * user. Nothing is stored twice, so nothing can go stale.
   *
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when the page is not registered
   */
  public final String pageUser(String pageId) {
    Objects.requireNonNull(pageId, "pageId");
    long stamp = structure.optimistic(); // the hot path: no write to shared memory, no lambda
    if (stamp != 0L) {
      PageRow page = pages.rowLocked(pageId);
      ConnectionRow connection = page == null ? null : connections.rowLocked(page.connectionId());
      String user = connection == null ? null : connection.user();
      if (user != null && structure.valid(stamp)) {
        return user;
      }
    }
    return structure.read(() -> {
      PageRow page = pages.rowLocked(pageId);
      if (page == null) {
        throw pages.unknown(pageId, "pageUser");
      }
      return connections.rowLocked(page.connectionId()).user();
    });
  }

  /**
   * Merges {@code fields} into a page row; as {@link Register#update} on {@link #pageItems()}.
   *
   * @throws RegisterException {@link Reason#UNKNOWN_KEY}, {@link Reason#CHAIN_FIELD} for
   *     {@value PageRow#CONNECTION_ID} or {@value ConnectionRow#USER}, {@link Reason#RESERVED_FIELD},
   *     {@link Reason#WRONG_TYPE}
   */
  public final PageRow updatePage(String pageId, Map<String, ?> fields) {
    return pages.update(pageId, fields);
  }

  /**
   * Moves a live connection to {@code user}: the login. It relabels the connection and never re-keys
   * it; its pages need nothing, their owner being derived through it. {@code fields} are merged into
   * the connection.
   *
   * <ul>
   *   <li><b>The guest follows its first real identity.</b> When the connection is still anonymous,
   *       the target has no entry, and the connection is its guest's only one, the guest's entry is
   *       transferred: re-keyed onto {@code user}, the same row with its lock, its store and its
   *       other fields; {@code fields} are merged into it too.
   *   <li><b>A resident wins.</b> A login onto a user who has an entry leaves that entry, and its
   *       store, the truth: the connection moves between the two users' sets, and the previous user
   *       leaves with its store when that was its last connection.
   *   <li><b>Only the anonymous transfer.</b> A real user's entry never changes key: the target is
   *       created fresh (with {@code fields}), and the previous user leaves when emptied. So is a
   *       guest entry that owns other connections too: logging in on one connection does not log in
   *       the others.
   * </ul>
   *
   * @return the connection row, relabelled
   * @throws RegisterException {@link Reason#GUEST_TARGET} when {@code user} carries the guest
   *     prefix, {@link Reason#UNKNOWN_KEY} when the connection is not registered,
   *     {@link Reason#BEING_DROPPED} when the connection or the target is being dropped,
   *     {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the previous user, of
   *     another connection or of any user (the login locks the connection, then the guest),
   *     {@link Reason#CHAIN_FIELD}, {@link Reason#RESERVED_FIELD}, {@link Reason#WRONG_TYPE} for the
   *     fields; nothing was changed
   */
  public final ConnectionRow changeConnectionUser(String connectionId, String user,
      Map<String, ?> fields) {
    return login.changeConnectionUser(connectionId, user, fields);
  }

  // ---- lifecycle: demolitions ---------------------------------------------------------------

  /** Drops a page, taking its connection along if it was the last page; see {@link #dropPage(String, boolean)}. */
  public final PageRow dropPage(String pageId) {
    return dropPage(pageId, true);
  }

  /**
   * Drops a page row; its id leaves its connection's pages in the same step. With {@code cascade},
   * when it was its connection's last page, the connection goes too — and with it the user, when
   * that was the user's last connection. The detach seam runs first. Without {@code cascade}, a
   * connection may be left with no pages.
   *
   * @return the dropped page row
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when the page is not registered,
   *     {@link Reason#BEING_DROPPED} when it (or a row its cascade would take) is already being
   *     dropped, {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the page's
   *     connection or user, or any row lock but the page's own; nothing was changed
   */
  public final PageRow dropPage(String pageId, boolean cascade) {
    return Demolition.dropPage(chain, pageId, cascade);
  }

  /** Drops a connection, taking its user along if it was the last; see {@link #dropConnection(String, boolean)}. */
  public final ConnectionRow dropConnection(String connectionId) {
    return dropConnection(connectionId, true);
  }

  /**
   * Drops a connection row and every page of it (each through the detach seam); its id leaves
   * its user's connections in the same step. With {@code cascade}, when it was the user's last
   * connection, the user goes too.
   *
   * @return the dropped connection row
   * @throws RegisterException {@link Reason#UNKNOWN_KEY}, {@link Reason#BEING_DROPPED},
   *     {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the connection or its
   *     user, or any row lock while a page of the connection is not its own; nothing was changed
   */
  public final ConnectionRow dropConnection(String connectionId, boolean cascade) {
    return Demolition.dropConnection(chain, connectionId, cascade);
  }

  /**
   * Drops a user entry with every connection of it and every page of those (each through
   * the detach seam), in one step.
   *
   * @return the dropped user entry
   * @throws RegisterException {@link Reason#UNKNOWN_KEY}, {@link Reason#BEING_DROPPED},
   *     {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the user or of one of its
   *     connections, or any row lock while a page of the user is not its own; nothing was changed
   */
  public final UserRow dropUser(String user) {
    return Demolition.dropUser(chain, user);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static boolean isPrimary(String name) {
    return name.equals(USER_ITEMS) || name.equals(CONNECTION_ITEMS) || name.equals(PAGE_ITEMS);
  }
}
