package dev.cryo.register;

import static dev.cryo.register.Chain.lockOrder;
import static dev.cryo.register.Chain.refuseIfLeaving;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Lock;

/**
 * One drop of the chain — a page, a connection or a user, with the tree under it and the parents
 * it empties — and the protocol that carries it out. The rows are gathered under the structure
 * lock (the claim); with no detach seam they leave in that same exclusive section. With one, they
 * are marked as being dropped, the seam runs on each page under the page's lock with no structure
 * lock held, and they leave together in a second section; a failing seam subscribes again the
 * pages already detached and releases the claim. Demolition climbs once: a claim adds the
 * originating row, everything under it, and the parents it empties.
 *
 * <p>The contracts are those of {@link RegisterRegistry#dropPage}, {@link
 * RegisterRegistry#dropConnection} and {@link RegisterRegistry#dropUser}. One instance per drop,
 * used by one thread.
 */
abstract class Demolition {

  private final Chain chain;
  private final Lock write;
  final Register<UserRow> users;
  final Register<ConnectionRow> connections;
  final Register<PageRow> pages;
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

  Demolition(Chain chain, String operation, String key) {
    this.chain = chain;
    this.write = chain.write;
    this.users = chain.users;
    this.connections = chain.connections;
    this.pages = chain.pages;
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

  /** See {@link RegisterRegistry#dropPage(String, boolean)}. */
  static PageRow dropPage(Chain chain, String pageId, boolean cascade) {
    Objects.requireNonNull(pageId, "pageId");
    return new Demolition(chain, "dropPage", pageId) {
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
    }.run().droppedPage;
  }

  /** See {@link RegisterRegistry#dropConnection(String, boolean)}. */
  static ConnectionRow dropConnection(Chain chain, String connectionId, boolean cascade) {
    Objects.requireNonNull(connectionId, "connectionId");
    return new Demolition(chain, "dropConnection", connectionId) {
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
    }.run().droppedConnection;
  }

  /** See {@link RegisterRegistry#dropUser}. */
  static UserRow dropUser(Chain chain, String user) {
    Objects.requireNonNull(user, "user");
    return new Demolition(chain, "dropUser", user) {
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
    }.run().droppedUser;
  }

  /** Claims, detaches and removes, as the package documentation says; returns this drop. */
  final Demolition run() {
    write.lock();
    try {
      claim();
      checkLockOrder();
      if (!chain.seams.detaches()) { // nothing to run outside the lock: the whole drop is one step
        remove();
        return this;
      }
      mark(Row.LEAVING);
    } finally {
      write.unlock();
    }
    int detached = 0;
    try {
      for (PageRow page : pageRows) {
        page.lock().lock();
        try {
          chain.seams.detach(page);
        } finally {
          page.lock().unlock();
        }
        detached++;
      }
    } catch (RuntimeException | Error failure) {
      resubscribe(pageRows.subList(0, detached), failure);
      throw failure;
    } finally {
      if (detached < pageRows.size()) {
        write.lock();
        try {
          mark(Row.LIVE); // a seam failed: the demolition stops, nothing leaves
        } finally {
          write.unlock();
        }
      }
    }
    write.lock();
    try {
      remove();
    } finally {
      write.unlock();
    }
    return this;
  }

  /**
   * Undoes the detaching of a demolition stopped by a failing seam: each page already detached is
   * subscribed again, last first, under its lock, while it is still claimed (so no other call sees
   * it live and unsubscribed). A subscription that fails too is added to {@code failure} as
   * suppressed, and the others still run; that page then lives on with whatever its seams left.
   */
  private void resubscribe(List<PageRow> detached, Throwable failure) {
    for (int i = detached.size() - 1; i >= 0; i--) {
      PageRow page = detached.get(i);
      page.lock().lock(); // the demolition held it a moment ago: the order allowed it then
      try {
        chain.seams.subscribe(page);
      } catch (RuntimeException | Error again) {
        failure.addSuppressed(again);
      } finally {
        page.lock().unlock();
      }
    }
  }
}
