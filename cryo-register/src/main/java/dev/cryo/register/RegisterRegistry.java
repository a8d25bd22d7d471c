package dev.cryo.register;

import dev.cryo.register.RegisterException.Reason;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
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
 * fields with the chain; and the two seams {@link #subscribePageStore} (after a page's birth) and
 * {@link #detachPage} (before a page leaves, or before its store is copied for a parcel). Those
 * methods are called with no structure lock held, on the thread of the lifecycle call.
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

  private final Clock clock;
  private final StructureLock structure = new StructureLock();
  private final Lock write = structure.write();
  private final Register<UserRow> users;
  private final Register<ConnectionRow> connections;
  private final Register<PageRow> pages;
  private final ConcurrentHashMap<String, Register<?>> hosted = new ConcurrentHashMap<>();
  private final boolean detaches;
  private final boolean subscribes;

  /** Creates a registry stamping rows with the system clock (UTC). */
  public RegisterRegistry() {
    this(Clock.systemUTC());
  }

  /**
   * Creates a registry stamping rows with {@code clock}.
   *
   * @param clock the server's clock, read for {@value ChainRow#LAST_REFRESH_TS} at every birth
   */
  @SuppressWarnings("this-escape") // the row factories are only called after construction
  public RegisterRegistry(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.users = new Register<>(USER_ITEMS, this::newUserRow, List.of(), structure, true);
    this.connections =
        new Register<>(CONNECTION_ITEMS, this::newConnectionRow, List.of(), structure, true);
    this.pages = new Register<>(PAGE_ITEMS, this::newPageRow, List.of(), structure, true);
    // The pages of a connection are filed once, in the connection's own set: the index on
    // connection_id reads that set, so the index and the edge are one structure.
    pages.deriveIndex(PageRow.CONNECTION_ID,
        new EdgeIndex(connections, connection -> ((ConnectionRow) connection).pages));
    pages.addIndex(PageRow.ROOT_PAGE_ID);
    hosted.put(USER_ITEMS, users);
    hosted.put(CONNECTION_ITEMS, connections);
    hosted.put(PAGE_ITEMS, pages);
    this.detaches = overrides(getClass(), "detachPage", PageRow.class);
    this.subscribes = overrides(getClass(), "subscribePageStore", PageRow.class);
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
   * Attaches to a page's store whatever must capture its writes: nothing here.
   *
   * <p>Called by {@link #newPage} right after the birth — the page, its connection and its user are
   * registered and {@link #pageUser} answers — on the creating thread, holding the new page's lock
   * (so nobody reaches the page's store before this returns) and no structure lock. It may lock the
   * page's connection and user (upwards, as the package's lock order says). If it throws, the page
   * stays registered and the exception reaches the caller of {@code newPage}.
   */
  protected void subscribePageStore(PageRow page) {}

  /**
   * Stops whatever captures into a page: nothing here.
   *
   * <p>Called exactly once for every page leaving the registry, before it leaves: the page is still
   * registered, marked as being dropped (other lifecycle calls on it are refused as
   * {@link Reason#BEING_DROPPED}), and this runs on the dropping thread holding the page's lock and
   * no structure lock; it may lock the page's connection and user. A consumer also calls it itself
   * before copying a page's store for a parcel. If it throws, the demolition stops and every row it
   * had claimed stays registered.
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
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(fields, "fields");
    refuseIfRegistered(users, user);
    UserRow row = users.build(user, fields, births(fields));
    write.lock();
    try {
      if (users.rowLocked(user) != null) {
        throw users.duplicate(user);
      }
      users.insertLocked(row);
    } finally {
      write.unlock();
    }
    return row;
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
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(fields, "fields");
    String owner = user != null ? user : GUEST_PREFIX + connectionId;
    while (true) {
      boolean ownerSeen = structure.read(() -> {
        if (connections.rowLocked(connectionId) != null) {
          throw connections.duplicate(connectionId);
        }
        UserRow ownerRow = users.rowLocked(owner);
        refuseIfLeaving(ownerRow, "newConnection", connectionId);
        return ownerRow != null;
      });
      ConnectionRow row =
          connections.build(connectionId, fields, births(fields, ConnectionRow.USER, owner));
      UserRow newOwner = ownerSeen ? null : users.build(owner, Map.of(), births(Map.of()));
      write.lock();
      try {
        if (connections.rowLocked(connectionId) != null) {
          throw connections.duplicate(connectionId);
        }
        UserRow ownerRow = users.rowLocked(owner);
        refuseIfLeaving(ownerRow, "newConnection", connectionId);
        if (ownerRow == null) {
          if (newOwner == null) {
            continue; // the owner left meanwhile: build it too
          }
          users.insertLocked(newOwner);
          ownerRow = newOwner;
        }
        connections.insertLocked(row);
        ownerRow.connections.addNew(connectionId);
        return row;
      } finally {
        write.unlock();
      }
    }
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
   * passes through verbatim. After the birth, {@link #subscribePageStore} runs.
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
    Objects.requireNonNull(pageId, "pageId");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(fields, "fields");
    Object root = null;
    Object parent = null;
    boolean avatar = false;
    boolean data = false;
    boolean store = false;
    boolean stamp = false;
    for (Map.Entry<String, ?> field : fields.entrySet()) { // one pass over the caller's fields
      switch (field.getKey()) {
        case PageRow.ROOT_PAGE_ID -> root = field.getValue();
        case PageRow.PARENT_PAGE_ID -> parent = field.getValue();
        case PageRow.AVATAR_KEY -> avatar = true;
        case PageRow.DATA -> data = true;
        case ChainRow.STORE -> store = true;
        case ChainRow.LAST_REFRESH_TS -> stamp = true;
        default -> { }
      }
    }
    if (parent != null && root == null) {
      throw new RegisterException(Reason.CHILD_WITHOUT_ROOT, PAGE_ITEMS, pageId,
          "page '" + pageId + "' has a parent ('" + parent + "') but no " + PageRow.ROOT_PAGE_ID
              + "; nothing was created: pass the root of the parent's tree");
    }
    boolean ownRoot = root == null;
    boolean defaultAvatar = !avatar;
    boolean noData = !data;
    boolean needStore = !store;
    boolean needStamp = !stamp;
    int size = 2 * (1 + fields.size() + (ownRoot ? 1 : 0) + (defaultAvatar ? 1 : 0)
        + (noData ? 1 : 0) + (needStore ? 1 : 0) + (needStamp ? 1 : 0));
    while (true) {
      // A first, optimistic look: refuse early, and learn which rows this birth must build.
      Object seen = lookBeforePageBirth(pageId, user, connectionId);
      ConnectionRow seenConnection = seen instanceof ConnectionRow row ? row : null;
      boolean userSeen = seenConnection != null || seen == Boolean.TRUE;
      Object[] pairs = new Object[size]; // the page's fields: one array, filled by build
      int length = 0;
      pairs[length++] = PageRow.CONNECTION_ID;
      pairs[length++] = connectionId;
      if (ownRoot) {
        pairs[length++] = PageRow.ROOT_PAGE_ID;
        pairs[length++] = pageId;
      }
      if (defaultAvatar) {
        pairs[length++] = PageRow.AVATAR_KEY;
        pairs[length++] = PageRow.ROOT_AVATAR_KEY;
      }
      if (noData) {
        pairs[length++] = PageRow.DATA;
        pairs[length++] = null;
      }
      if (needStore) {
        pairs[length++] = ChainRow.STORE;
        pairs[length++] = store();
      }
      if (needStamp) {
        pairs[length++] = ChainRow.LAST_REFRESH_TS;
        pairs[length] = clock.instant();
      }
      PageRow page = pages.build(pageId, fields, pairs);
      ConnectionRow newConnection = null;
      UserRow newUser = null;
      if (seenConnection == null) {
        newConnection = connections.build(connectionId, Map.of(),
            births(Map.of(), ConnectionRow.USER, user));
        if (!userSeen) {
          newUser = users.build(user, Map.of(), births(Map.of()));
        }
      }
      if (subscribes && !page.lock().tryLock()) { // nobody else can reach it yet: always free
        throw new IllegalStateException("the lock of page '" + pageId + "', not yet born, is held");
      }
      try {
        write.lock();
        try {
          ConnectionRow connection = seenConnection;
          if (connection != null && connection.state == Row.LIVE
              && connection.register == connections) {
            // The common case: the connection seen is still there. Only its label may have moved.
            if (!connection.user().equals(user)) {
              throw userMismatch(pageId, connection, user);
            }
            if (!pages.insertIfAbsentLocked(page)) {
              throw pages.duplicate(pageId);
            }
          } else {
            connection = checkPageBirth(pageId, user, connectionId);
            if (connection == null) {
              if (newConnection == null) {
                continue; // the connection left meanwhile: build it
              }
              UserRow owner = users.rowLocked(user);
              if (owner == null) {
                if (newUser == null) {
                  continue; // the user left meanwhile: build it
                }
                users.insertLocked(newUser);
                owner = newUser;
              }
              connections.insertLocked(newConnection);
              owner.connections.addNew(connectionId);
              connection = newConnection;
            }
            pages.insertLocked(page);
          }
          connection.pages.addNew(pageId);
        } finally {
          write.unlock();
        }
        if (subscribes) {
          subscribePageStore(page);
        }
        return page;
      } finally {
        if (subscribes) {
          page.lock().unlock();
        }
      }
    }
  }

  /**
   * The first look of a page birth, without locking in the common case: refuses what cannot
   * happen, and returns the connection when it exists, else whether the user does.
   */
  private Object lookBeforePageBirth(String pageId, String user, String connectionId) {
    long stamp = structure.optimistic();
    if (stamp != 0L) {
      try {
        ConnectionRow found = checkPageBirth(pageId, user, connectionId);
        Object seen = found != null ? found : Boolean.valueOf(users.rowLocked(user) != null);
        if (structure.valid(stamp)) {
          return seen;
        }
      } catch (RuntimeException refusedOrTorn) {
        if (structure.valid(stamp)) {
          throw refusedOrTorn;
        }
      }
    }
    return structure.read(() -> {
      ConnectionRow found = checkPageBirth(pageId, user, connectionId);
      return found != null ? found : Boolean.valueOf(users.rowLocked(user) != null);
    });
  }

  /**
   * Refuses a page birth that cannot happen; returns the connection when it exists, else null.
   * Caller reads under the structure lock (optimistically or not).
   */
  private ConnectionRow checkPageBirth(String pageId, String user, String connectionId) {
    if (pages.rowLocked(pageId) != null) {
      throw pages.duplicate(pageId);
    }
    ConnectionRow connection = connections.rowLocked(connectionId);
    if (connection != null) {
      refuseIfLeaving(connection, "newPage", pageId);
      if (!connection.user().equals(user)) {
        throw userMismatch(pageId, connection, user);
      }
      return connection;
    }
    refuseIfLeaving(users.rowLocked(user), "newPage", pageId);
    return null;
  }

  private static RegisterException userMismatch(String pageId, ConnectionRow connection,
      String user) {
    return new RegisterException(Reason.USER_MISMATCH, PAGE_ITEMS, pageId,
        "newPage '" + pageId + "': connection '" + connection.key() + "' belongs to '"
            + connection.user() + "', not to '" + user + "'; nothing was created: pass '"
            + connection.user() + "' (a page's owner is its connection's)");
  }

  // ---- lifecycle: reads and updates ---------------------------------------------------------

  /**
   * The user a page belongs to, derived by walking up: page → its connection → that connection's
   * user. Nothing is stored twice, so nothing can go stale.
   *
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when the page is not registered
   */
  public final String pageUser(String pageId) {
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
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(fields, "fields");
    if (user.startsWith(GUEST_PREFIX)) {
      throw new RegisterException(Reason.GUEST_TARGET, CONNECTION_ITEMS, connectionId,
          "changeConnectionUser '" + connectionId + "' to '" + user + "': '" + GUEST_PREFIX
              + "' is reserved, nobody logs in as a guest; nothing was changed: pass a real user");
    }
    while (true) {
      LoginView view = structure.read(() -> {
        ConnectionRow found = connections.rowLocked(connectionId);
        if (found == null) {
          throw connections.unknown(connectionId, "changeConnectionUser");
        }
        refuseIfLeaving(found, "changeConnectionUser", connectionId);
        UserRow owner = users.rowLocked(found.user());
        UserRow resident = users.rowLocked(user);
        refuseIfLeaving(resident, "changeConnectionUser", connectionId);
        return new LoginView(found, owner, resident,
            resident == null && owner.isGuest() && owner.connections.size() == 1);
      });
      ConnectionRow connection = view.connection();
      UserRow previous = view.previous();
      UserRow target = view.target();
      boolean transfer = view.transfer();
      checkFields(connection, fields);
      if (previous.lock().isHeldByCurrentThread() && !connection.lock().isHeldByCurrentThread()) {
        throw lockOrder("changeConnectionUser", connectionId, previous);
      }
      UserRow created = null;
      if (target == null) {
        if (transfer) {
          checkFields(previous, fields);
        } else {
          created = users.build(user, fields, births(fields));
        }
      }
      connection.lock().lock();
      try {
        if (transfer) {
          previous.lock().lock(); // upwards from the connection
        }
        try {
          write.lock();
          try {
            if (connection.register != connections || connection.state != Row.LIVE
                || users.rowLocked(connection.user()) != previous
                || users.rowLocked(user) != target || previous.state != Row.LIVE
                || (transfer && previous.connections.size() != 1)) {
              continue; // the chain moved meanwhile: look again
            }
            // The resident was live when we looked, but a drop may have claimed it since: it is
            // still registered, so the check above passes, and its removal takes only the
            // connections it had at its claim. Moving this one onto it would orphan it.
            refuseIfLeaving(target, "changeConnectionUser", connectionId);
            Map<String, Object> connectionChanges = new HashMap<>(fields);
            connectionChanges.put(ConnectionRow.USER, user);
            if (transfer) {
              users.rekeyLocked(previous, user);
              users.applyLocked(previous, fields);
              connections.applyLocked(connection, connectionChanges);
              return connection;
            }
            UserRow destination = target;
            if (destination == null) {
              users.insertLocked(created);
              destination = created;
            }
            connections.applyLocked(connection, connectionChanges);
            if (destination != previous) {
              previous.connections.remove(connectionId);
              destination.connections.addNew(connectionId);
              if (previous.connections.isEmpty()) {
                users.removeLocked(previous);
              }
            }
            return connection;
          } finally {
            write.unlock();
          }
        } finally {
          if (transfer) {
            previous.lock().unlock();
          }
        }
      } finally {
        connection.lock().unlock();
      }
    }
  }

  /** What a login saw of the chain before locking anything; checked again under the lock. */
  private record LoginView(ConnectionRow connection, UserRow previous, UserRow target,
      boolean transfer) {}

  // ---- lifecycle: demolitions ---------------------------------------------------------------

  /** Drops a page, taking its connection along if it was the last page; see {@link #dropPage(String, boolean)}. */
  public final PageRow dropPage(String pageId) {
    return dropPage(pageId, true);
  }

  /**
   * Drops a page row; its id leaves its connection's pages in the same step. With {@code cascade},
   * when it was its connection's last page, the connection goes too — and with it the user, when
   * that was the user's last connection. {@link #detachPage} runs first. Without {@code cascade}, a
   * connection may be left with no pages.
   *
   * @return the dropped page row
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when the page is not registered,
   *     {@link Reason#BEING_DROPPED} when it (or a row its cascade would take) is already being
   *     dropped, {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the page's
   *     connection or user, or any row lock but the page's own; nothing was changed
   */
  public final PageRow dropPage(String pageId, boolean cascade) {
    Objects.requireNonNull(pageId, "pageId");
    return demolish(new Demolition("dropPage", pageId) {
      @Override
      void claim() {
        PageRow page = pages.rowLocked(pageId);
        if (page == null) {
          throw pages.unknown(pageId, "dropPage");
        }
        refuseIfLeaving(page, "dropPage", pageId);
        ConnectionRow connection = connections.rowLocked(page.connectionId());
        addPage(page);
        if (cascade) {
          climbsFrom = connection;
          if (connection.pages.size() == 1) {
            climbFrom(connection);
          }
        }
      }
    }).droppedPage;
  }

  /** Drops a connection, taking its user along if it was the last; see {@link #dropConnection(String, boolean)}. */
  public final ConnectionRow dropConnection(String connectionId) {
    return dropConnection(connectionId, true);
  }

  /**
   * Drops a connection row and every page of it (each through {@link #detachPage}); its id leaves
   * its user's connections in the same step. With {@code cascade}, when it was the user's last
   * connection, the user goes too.
   *
   * @return the dropped connection row
   * @throws RegisterException {@link Reason#UNKNOWN_KEY}, {@link Reason#BEING_DROPPED},
   *     {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the connection or its
   *     user, or any row lock while a page of the connection is not its own; nothing was changed
   */
  public final ConnectionRow dropConnection(String connectionId, boolean cascade) {
    Objects.requireNonNull(connectionId, "connectionId");
    return demolish(new Demolition("dropConnection", connectionId) {
      @Override
      void claim() {
        ConnectionRow connection = connections.rowLocked(connectionId);
        if (connection == null) {
          throw connections.unknown(connectionId, "dropConnection");
        }
        addConnection(connection);
        if (cascade) {
          climbsFromConnection = connection;
          UserRow user = users.rowLocked(connection.user());
          if (user.connections.size() == 1) {
            addUser(user);
          }
        }
      }
    }).droppedConnection;
  }

  /**
   * Drops a user entry with every connection of it and every page of those (each through
   * {@link #detachPage}), in one step.
   *
   * @return the dropped user entry
   * @throws RegisterException {@link Reason#UNKNOWN_KEY}, {@link Reason#BEING_DROPPED},
   *     {@link Reason#LOCK_ORDER} when the calling thread holds the lock of the user or of one of its
   *     connections, or any row lock while a page of the user is not its own; nothing was changed
   */
  public final UserRow dropUser(String user) {
    Objects.requireNonNull(user, "user");
    return demolish(new Demolition("dropUser", user) {
      @Override
      void claim() {
        UserRow entry = users.rowLocked(user);
        if (entry == null) {
          throw users.unknown(user, "dropUser");
        }
        refuseIfLeaving(entry, "dropUser", user);
        for (String connectionId : entry.connections.toArray()) {
          addConnection(connections.rowLocked(connectionId));
        }
        addUser(entry);
      }
    }).droppedUser;
  }

  /**
   * The rows one drop takes, gathered under the structure lock. Demolition climbs once: a claim
   * adds the originating row, everything under it, and the parents it empties.
   */
  private abstract class Demolition {
    final String operation;
    final String key;
    final List<PageRow> pageRows = new ArrayList<>(8);
    final List<ConnectionRow> connectionRows = new ArrayList<>(2);
    PageRow droppedPage;
    ConnectionRow droppedConnection;
    UserRow droppedUser;
    /** The connection of a cascading page drop: it goes when the drop leaves it with no page. */
    ConnectionRow climbsFrom;
    /** The connection a cascading drop takes: its user goes when it leaves him with none. */
    ConnectionRow climbsFromConnection;

    Demolition(String operation, String key) {
      this.operation = operation;
      this.key = key;
    }

    /** Gathers the rows; refuses an unknown key. Caller holds the structure lock exclusively. */
    abstract void claim();

    void addPage(PageRow row) {
      if (droppedPage == null) {
        droppedPage = row;
      }
      pageRows.add(row);
    }

    /** A connection with every page of it. */
    void addConnection(ConnectionRow row) {
      refuseIfLeaving(row, operation, key);
      if (droppedConnection == null) {
        droppedConnection = row;
      }
      connectionRows.add(row);
      for (String pageId : row.pages.toArray()) {
        PageRow child = pages.rowLocked(pageId);
        refuseIfLeaving(child, operation, key);
        pageRows.add(child);
      }
    }

    /** The climb from a page that was its connection's last: the connection, then maybe the user. */
    void climbFrom(ConnectionRow row) {
      refuseIfLeaving(row, operation, key);
      if (droppedConnection == null) {
        droppedConnection = row;
      }
      connectionRows.add(row);
      climbsFromConnection = row;
      UserRow owner = users.rowLocked(row.user());
      if (owner.connections.size() == 1) {
        addUser(owner);
      }
    }

    void addUser(UserRow row) {
      refuseIfLeaving(row, operation, key);
      droppedUser = row;
    }

    /** Refuses when the calling thread holds a lock the detaching would have to take out of order. */
    void checkLockOrder() {
      for (PageRow row : pageRows) {
        ConnectionRow parent = connections.rowLocked(row.connectionId());
        refuseIfHeld(parent);
        refuseIfHeld(users.rowLocked(parent.user()));
      }
      for (ConnectionRow row : connectionRows) {
        refuseIfHeld(row);
        refuseIfHeld(users.rowLocked(row.user()));
      }
      if (droppedUser != null) {
        refuseIfHeld(droppedUser);
      }
      int held = RowLock.heldAtOrAbove(RowLock.PAGE);
      if (held >= 0) { // a page's own call may drop its own page, never wait for another's
        for (PageRow row : pageRows) {
          if (!row.lock().isHeldByCurrentThread()) {
            throw RowLock.outOfOrder(row, held);
          }
        }
      }
    }

    private void refuseIfHeld(Row row) {
      if (row.lock().isHeldByCurrentThread()) {
        throw lockOrder(operation, key, row);
      }
    }

    void mark(int state) {
      for (PageRow row : pageRows) {
        row.mark(state);
      }
      for (ConnectionRow row : connectionRows) {
        row.mark(state);
      }
      if (droppedUser != null) {
        droppedUser.mark(state);
      }
    }

    /** Unpublishes every claimed row and both directions of their edges. */
    void remove() {
      for (PageRow row : pageRows) {
        ConnectionRow parent = connections.rowLocked(row.connectionId());
        parent.pages.remove(row.key());
        pages.removeLocked(row);
      }
      for (ConnectionRow row : connectionRows) {
        UserRow owner = users.rowLocked(row.user());
        owner.connections.remove(row.key());
        row.pages.clear();
        connections.removeLocked(row);
      }
      if (droppedUser != null) {
        droppedUser.connections.clear();
        users.removeLocked(droppedUser);
      }
      climbAgain();
    }

    /**
     * The climb, read again at the removal. The claim counted the parent's children as they were
     * then; a drop of a sibling claimed meanwhile, running its seams as this one did, had not yet
     * removed it, so each saw the other and neither climbed. Whichever cascading drop removes the
     * parent's last child takes the parent, in this same step: the climb still starts once, from
     * an originating drop, and a parent a claim already took (or one being dropped by another call)
     * is left alone. With no seams the claim and the removal are one step and this finds nothing.
     */
    private void climbAgain() {
      if (climbsFrom != null && droppedConnection == null && climbsFrom.state == Row.LIVE
          && climbsFrom.pages.isEmpty()) {
        ConnectionRow row = climbsFrom;
        droppedConnection = row;
        connectionRows.add(row);
        users.rowLocked(row.user()).connections.remove(row.key());
        connections.removeLocked(row);
        climbsFromConnection = row;
      }
      if (climbsFromConnection != null && droppedUser == null) {
        UserRow owner = users.rowLocked(climbsFromConnection.user());
        if (owner != null && owner.state == Row.LIVE && owner.connections.isEmpty()) {
          droppedUser = owner;
          users.removeLocked(owner);
        }
      }
    }
  }

  private <D extends Demolition> D demolish(D demolition) {
    write.lock();
    try {
      demolition.claim();
      demolition.checkLockOrder();
      if (!detaches) { // nothing to run outside the lock: the whole drop is one step
        demolition.remove();
        return demolition;
      }
      demolition.mark(Row.LEAVING);
    } finally {
      write.unlock();
    }
    int detached = 0;
    try {
      for (PageRow page : demolition.pageRows) {
        page.lock().lock();
        try {
          detachPage(page);
        } finally {
          page.lock().unlock();
        }
        detached++;
      }
    } finally {
      if (detached < demolition.pageRows.size()) {
        write.lock();
        try {
          demolition.mark(Row.LIVE); // a seam failed: the demolition stops, nothing leaves
        } finally {
          write.unlock();
        }
      }
    }
    write.lock();
    try {
      demolition.remove();
    } finally {
      write.unlock();
    }
    return demolition;
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * The pairs the registry sets at a birth — {@code first}, then a new store and the clock's instant
   * unless {@code fields} supplies them — followed by free slots for the caller's fields.
   */
  private Object[] births(Map<String, ?> fields, Object... first) {
    return births(fields.size(), !fields.containsKey(ChainRow.STORE),
        !fields.containsKey(ChainRow.LAST_REFRESH_TS), first);
  }

  private Object[] births(int fieldCount, boolean store, boolean stamp, Object... first) {
    Object[] pairs = Arrays.copyOf(first,
        first.length + (store ? 2 : 0) + (stamp ? 2 : 0) + 2 * fieldCount);
    int length = first.length;
    if (store) {
      pairs[length++] = ChainRow.STORE;
      pairs[length++] = store();
    }
    if (stamp) {
      pairs[length++] = ChainRow.LAST_REFRESH_TS;
      pairs[length] = clock.instant();
    }
    return pairs;
  }

  /** A store from the factory, which must make one. */
  private Object store() {
    Object store = newStore();
    if (store == null) {
      throw new IllegalStateException(getClass().getName()
          + ".newStore() returned null; a row needs a live store: return one");
    }
    return store;
  }

  private void refuseIfRegistered(Register<?> register, String key) {
    if (register.contains(key)) {
      throw register.duplicate(key);
    }
  }

  private static void checkFields(Row row, Map<String, ?> fields) {
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      Register.refuseCallerField(row.registerName(), row.key(), row, field.getKey());
      row.check(field.getKey(), field.getValue());
    }
  }

  private static void refuseIfLeaving(Row row, String operation, String key) {
    if (row != null && row.state == Row.LEAVING) {
      throw new RegisterException(Reason.BEING_DROPPED, row.registerName(), row.key(),
          operation + " '" + key + "': " + row.getClass().getSimpleName() + " '" + row.key()
              + "' is being dropped by another call; nothing was changed: retry once it is gone");
    }
  }

  private static RegisterException lockOrder(String operation, String key, Row held) {
    return new RegisterException(Reason.LOCK_ORDER, held.registerName(), held.key(),
        operation + " '" + key + "': this thread holds the lock of " + held.getClass().getSimpleName()
            + " '" + held.key() + "', and the call would then lock rows below it, against the "
            + "lock order (page, then connection, then user); nothing was changed: release that "
            + "lock and call again");
  }

  private static boolean isPrimary(String name) {
    return name.equals(USER_ITEMS) || name.equals(CONNECTION_ITEMS) || name.equals(PAGE_ITEMS);
  }

  private static boolean overrides(Class<?> subclass, String method, Class<?>... parameters) {
    for (Class<?> type = subclass; type != RegisterRegistry.class; type = type.getSuperclass()) {
      try {
        type.getDeclaredMethod(method, parameters);
        return true;
      } catch (NoSuchMethodException e) {
        // keep looking up
      }
    }
    return false;
  }
}
