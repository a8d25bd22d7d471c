package dev.cryo.register;

import static dev.cryo.register.Chain.refuseIfLeaving;
import static dev.cryo.register.Chain.refuseIfRegistered;
import static dev.cryo.register.RegisterRegistry.GUEST_PREFIX;
import static dev.cryo.register.RegisterRegistry.PAGE_ITEMS;

import dev.cryo.register.RegisterException.Reason;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;

/**
 * The births of the chain: a user, a connection (with its user when unseen), a page (with its
 * connection and user when unseen), each published whole in one exclusive section of the structure
 * lock. Rows are built before that section, with no lock held (factories and stores are caller
 * code); a first, optimistic look refuses early and learns which rows to build, and the section
 * checks again and, when the chain moved meanwhile, starts over. A new page is locked from before
 * its publication until the subscribe seam has run on it.
 *
 * <p>The contracts are those of {@link RegisterRegistry#newUser}, {@link
 * RegisterRegistry#newConnection} and {@link RegisterRegistry#newPage}. Thread-safe.
 */
final class PageBirth {

  private final Chain chain;
  private final StructureLock structure;
  private final Lock write;
  private final Register<UserRow> users;
  private final Register<ConnectionRow> connections;
  private final Register<PageRow> pages;

  PageBirth(Chain chain) {
    this.chain = chain;
    this.structure = chain.structure;
    this.write = chain.write;
    this.users = chain.users;
    this.connections = chain.connections;
    this.pages = chain.pages;
  }

  /** See {@link RegisterRegistry#newUser(String, Map)}. */
  UserRow newUser(String user, Map<String, ?> fields) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(fields, "fields");
    refuseIfRegistered(users, user);
    UserRow row = users.build(user, fields, chain.births(fields));
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

  /** See {@link RegisterRegistry#newConnection(String, String, Map)}. */
  ConnectionRow newConnection(String connectionId, String user, Map<String, ?> fields) {
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
          connections.build(connectionId, fields, chain.births(fields, ConnectionRow.USER, owner));
      UserRow newOwner = ownerSeen ? null : users.build(owner, Map.of(), chain.births(Map.of()));
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

  /** See {@link RegisterRegistry#newPage(String, String, String, Map)}. */
  PageRow newPage(String pageId, String user, String connectionId,
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
        pairs[length++] = chain.store();
      }
      if (needStamp) {
        pairs[length++] = ChainRow.LAST_REFRESH_TS;
        pairs[length] = chain.clock.instant();
      }
      PageRow page = pages.build(pageId, fields, pairs);
      ConnectionRow newConnection = null;
      UserRow newUser = null;
      if (seenConnection == null) {
        newConnection = connections.build(connectionId, Map.of(),
            chain.births(Map.of(), ConnectionRow.USER, user));
        if (!userSeen) {
          newUser = users.build(user, Map.of(), chain.births(Map.of()));
        }
      }
      // Nobody else can reach the page yet: its lock is free, and a try is never out of order.
      if (chain.seams.subscribes() && !page.lock().tryLock()) {
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
        if (chain.seams.subscribes()) {
          chain.seams.subscribe(page);
        }
        return page;
      } finally {
        if (chain.seams.subscribes()) {
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
}
