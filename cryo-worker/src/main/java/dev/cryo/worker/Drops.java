package dev.cryo.worker;

import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.worker.Tenant.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The drops of a {@link Worker}'s rows ordered from above — a user, a connection, a page — each
 * with its cascade and its announcements. The contracts are {@link Worker#dropUser},
 * {@link Worker#dropConnection} and {@link Worker#dropPage}'s.
 *
 * <p>A drop respects the phase of the user's stay. While he is being frozen, woken or handed over
 * by a login tail, the drop waits for that transition — outside every lock, up to the worker's
 * transition wait — and then applies to what it left: to him when he is still here; refused with
 * {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} ({@link WorkerException.Where#FROZEN}) when he went
 * into the freezer meanwhile, so that nothing announced as dropped ever comes back at his next
 * wake and no freeze loses its rows under it; with
 * {@link RefusalReason#IN_TRANSITION} (retryable) when the transition outlasts the wait.
 *
 * <p>Thread-safe, with the worker's locking ({@link LockOrder}): each drop changes the registry
 * and publishes under the user's tenant lock, having tried (never waited for) the page locks the
 * registry's detach seam takes; a busy page is waited for outside every lock, within the quit's
 * grace ({@link RefusalReason#ROW_BUSY} past it). The drop delivers its announcements
 * before it returns.
 */
final class Drops {

  /** What a drop's step returns to be looked at again (the chain moved meanwhile). */
  private static final Object AGAIN = new Object();

  private final Worker worker;
  private final String name;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Announcer announcer;

  Drops(Worker worker, String name, ConcurrentHashMap<String, Tenant> tenants,
      RegisterRegistry registry, Announcer announcer) {
    this.worker = worker;
    this.name = name;
    this.tenants = tenants;
    this.registry = registry;
    this.announcer = announcer;
  }

  /**
   * Drops a user with his connections and pages, announced as {@code drop_pages},
   * {@code drop_connections} and {@code drop_user}. Silent when he is not here.
   *
   * @param generation the stay the drop is for ({@code Grant}): a stay at another generation is
   *     left alone, as if he were not here; -1 for any stay
   * @return whether he was here
   */
  boolean dropUser(String user, long generation) {
    long deadline = System.nanoTime() + worker.transitionWait().toNanos();
    while (true) {
      Tenant tenant = tenants.get(user);
      if (tenant == null) {
        return false;
      }
      List<String> closed = new ArrayList<>();
      Object outcome = attempt(tenant, "the drop of '" + user + "'", deadline,
          () -> pagesOfUser(user), () -> {
            if (generation >= 0 && tenant.generation() != generation) {
              return false; // another stay of his: the order was decided on stale maps
            }
            boolean dropped = dropAnnounced(user, closed);
            if (dropped && tenant.pending() == 0) {
              worker.leave(tenant, "dropped");
            }
            return dropped;
          });
      if (outcome != AGAIN) {
        announcer.flush();
        worker.pagesClosed(user, closed);
        return (Boolean) outcome;
      }
    }
  }

  /**
   * Drops a user's tree with its announcements; the caller holds his tenant lock. The pages dropped
   * are added to {@code closed}, for {@link AppHost#pagesClosed}.
   */
  boolean dropAnnounced(String user, List<String> closed) {
    Optional<UserRow> row = registry.userItems().get(user);
    if (row.isEmpty()) {
      return false;
    }
    List<String> connectionIds = new ArrayList<>(new TreeSet<>(row.get().connections()));
    List<String> pageIds = new ArrayList<>();
    for (String connectionId : connectionIds) {
      registry.connectionItems().get(connectionId)
          .ifPresent(connection -> pageIds.addAll(new TreeSet<>(connection.pages())));
    }
    registry.dropUser(user);
    closed.addAll(pageIds);
    if (!pageIds.isEmpty()) {
      announcer.publish(AnnouncementKind.DROP_PAGES, user, pageIds, null);
    }
    if (!connectionIds.isEmpty()) {
      announcer.publish(AnnouncementKind.DROP_CONNECTIONS, user, connectionIds, null);
    }
    announcer.publish(AnnouncementKind.DROP_USER, user, user);
    return true;
  }

  /**
   * Drops a connection with its pages ({@code drop_pages}, {@code drop_connection}), and its user
   * when it was his last ({@code drop_user}) — with {@code keepUser} (a logout), only a guest: an
   * identity stays without connections.
   *
   * @throws WorkerException {@link RefusalReason#UNKNOWN_CONNECTION} when it is not here
   */
  void dropConnection(String connectionId, boolean keepUser) {
    long deadline = System.nanoTime() + worker.transitionWait().toNanos();
    while (true) {
      ConnectionRow seen = registry.connectionItems().get(connectionId)
          .orElseThrow(() -> unknownConnection(connectionId));
      Tenant tenant = tenants.get(seen.user());
      if (tenant == null) {
        throw unknownConnection(connectionId);
      }
      List<String> closed = new ArrayList<>();
      Object outcome = attempt(tenant, "the drop of connection '" + connectionId + "'", deadline,
          () -> registry.connectionItems().get(connectionId).map(worker::pagesOf)
              .orElse(List.of()),
          () -> {
            String user = tenant.user;
            ConnectionRow connection = registry.connectionItems().get(connectionId)
                .orElseThrow(() -> unknownConnection(connectionId));
            if (!connection.user().equals(user)) {
              return AGAIN; // logged in as somebody else meanwhile
            }
            UserRow owner = registry.userItems().get(user).orElseThrow();
            List<String> pageIds = new ArrayList<>(new TreeSet<>(connection.pages()));
            boolean userGoes = owner.connections().size() == 1 && !(keepUser && !owner.isGuest());
            registry.dropConnection(connectionId, userGoes);
            closed.addAll(pageIds);
            if (!pageIds.isEmpty()) {
              announcer.publish(AnnouncementKind.DROP_PAGES, user, pageIds, null);
            }
            announcer.publish(AnnouncementKind.DROP_CONNECTION, user, connectionId);
            if (userGoes) {
              announcer.publish(AnnouncementKind.DROP_USER, user, user);
              if (tenant.pending() == 0) {
                worker.leave(tenant, "dropped");
              }
            }
            return Boolean.TRUE;
          });
      if (outcome != AGAIN) {
        announcer.flush();
        worker.pagesClosed(tenant.user, closed);
        return;
      }
    }
  }

  /**
   * Drops a page ({@code drop_page}); its connection goes with its last page
   * ({@code drop_connection}) and the user with his last connection ({@code drop_user}). Silent when
   * the page is not here.
   *
   * @return whether it was here
   */
  boolean dropPage(String pageId) {
    long deadline = System.nanoTime() + worker.transitionWait().toNanos();
    while (true) {
      String user;
      try {
        user = registry.pageUser(pageId);
      } catch (RegisterException e) {
        return false;
      }
      Tenant tenant = tenants.get(user);
      if (tenant == null) {
        return false;
      }
      Object outcome = attempt(tenant, "the drop of page '" + pageId + "'", deadline,
          () -> registry.pageItems().get(pageId).map(List::of).orElse(List.of()),
          () -> {
            PageRow page = registry.pageItems().get(pageId).orElse(null);
            if (page == null) {
              return Boolean.FALSE;
            }
            ConnectionRow connection = registry.connectionItems().get(page.connectionId())
                .orElseThrow();
            if (!connection.user().equals(user)) {
              return AGAIN; // logged in as somebody else meanwhile
            }
            boolean connectionGoes = connection.pages().size() == 1;
            boolean userGoes = connectionGoes && registry.userItems().get(user)
                .map(row -> row.connections().size() == 1).orElse(false);
            registry.dropPage(pageId);
            announcer.publish(AnnouncementKind.DROP_PAGE, user, pageId);
            if (connectionGoes) {
              announcer.publish(AnnouncementKind.DROP_CONNECTION, user, connection.connectionId());
            }
            if (userGoes) {
              announcer.publish(AnnouncementKind.DROP_USER, user, user);
              if (tenant.pending() == 0) {
                worker.leave(tenant, "dropped");
              }
            }
            return Boolean.TRUE;
          });
      if (outcome != AGAIN) {
        announcer.flush();
        if (outcome == Boolean.TRUE) {
          worker.pagesClosed(user, List.of(pageId));
        }
        return (Boolean) outcome;
      }
    }
  }

  /**
   * Closes page {@code pageId} of connection {@code connectionId} for good, from a call of that
   * connection ({@link Worker#closePage}): announced as {@code drop_page}, delivered before it
   * returns. Never cascades: the connection stays, with no pages when it was its last (the call
   * that closed it is still running on it), and so does the user. Runs no hook: the caller (the
   * application's call) runs {@code onPageClosed} itself.
   *
   * @return whether the page was here and hung from that connection; false: nothing changed
   */
  boolean closePage(String connectionId, String pageId) {
    long deadline = System.nanoTime() + worker.transitionWait().toNanos();
    while (true) {
      String user;
      try {
        user = registry.pageUser(pageId);
      } catch (RegisterException e) {
        return false;
      }
      Tenant tenant = tenants.get(user);
      if (tenant == null) {
        return false;
      }
      Object outcome = attempt(tenant, "the close of page '" + pageId + "'", deadline,
          () -> registry.pageItems().get(pageId).map(List::of).orElse(List.of()),
          () -> {
            PageRow page = registry.pageItems().get(pageId).orElse(null);
            if (page == null || !page.connectionId().equals(connectionId)) {
              return Boolean.FALSE;
            }
            ConnectionRow connection = registry.connectionItems().get(connectionId)
                .orElseThrow();
            if (!connection.user().equals(user)) {
              return AGAIN; // logged in as somebody else meanwhile
            }
            registry.dropPage(pageId, false);
            announcer.publish(AnnouncementKind.DROP_PAGE, user, pageId);
            return Boolean.TRUE;
          });
      if (outcome != AGAIN) {
        announcer.flush();
        return (Boolean) outcome;
      }
    }
  }

  /**
   * One try of a drop on {@code tenant}: under his lock, when he is here and active and every page
   * lock the drop will take is free, runs {@code step} and returns what it returned. Otherwise it
   * waits — outside every lock, until {@code deadline} ({@link System#nanoTime()}) — for what was
   * in the way, and returns {@link #AGAIN}.
   *
   * @throws WorkerException {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} when he was frozen while the
   *     drop waited, {@link RefusalReason#IN_TRANSITION} or
   *     {@link RefusalReason#ROW_BUSY} past the deadline; nothing was changed
   */
  private Object attempt(Tenant tenant, String order, long deadline,
      Supplier<List<PageRow>> pages, Supplier<Object> step) {
    CompletableFuture<Void> transition = null;
    ReentrantLock busy = null;
    tenant.lock.lock();
    try {
      if (!tenant.present()) {
        return AGAIN;
      }
      if (tenant.phase() != Phase.ACTIVE) {
        transition = tenant.transition(); // a freeze, a wake or a login tail: wait, then look again
      } else {
        List<ReentrantLock> pageLocks = worker.pageLocks(pages.get());
        busy = LockOrder.tryLockAll(pageLocks);
        if (busy == null) {
          try {
            return step.get();
          } finally {
            LockOrder.unlockAll(pageLocks);
          }
        }
      }
    } finally {
      tenant.lock.unlock();
    }
    if (transition != null) {
      awaitTransition(tenant, transition, order, deadline);
    } else if (!LockOrder.awaitFree(busy, deadline)) {
      throw new WorkerException(RefusalReason.ROW_BUSY, tenant.user, order + " on worker "
          + name + " waited for a page a call's store action holds until its bound; nothing was"
          + " dropped: retry once that call is done");
    }
    return AGAIN;
  }

  private void awaitTransition(Tenant tenant, CompletableFuture<Void> transition, String order,
      long deadline) {
    try {
      transition.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      // a wake that failed: he is not here any more, which the next look sees
    } catch (TimeoutException e) {
      throw inTransition(tenant, order);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw inTransition(tenant, order);
    }
    tenant.lock.lock();
    try {
      if (!tenant.present() && tenant.leftTo() == WorkerException.Where.FROZEN) {
        throw WorkerException.userLeft(tenant.user, WorkerException.Where.FROZEN, "'"
            + tenant.user + "' was frozen on worker " + name + " before " + order + " could run;"
            + " nothing was dropped, and what it named is in the freezer with him: drop it"
            + " there, or order the drop again where he wakes");
      }
    } finally {
      tenant.lock.unlock();
    }
  }

  private WorkerException inTransition(Tenant tenant, String order) {
    return new WorkerException(RefusalReason.IN_TRANSITION, tenant.user, order
        + " waited " + worker.transitionWait() + " for '" + tenant.user + "' to finish being"
        + " frozen, woken or handed over on worker " + name + "; nothing was dropped: retry");
  }

  /** Every page of a user that is registered, in id order; the caller holds his tenant lock. */
  List<PageRow> pagesOfUser(String user) {
    List<PageRow> pages = new ArrayList<>();
    UserRow row = registry.userItems().get(user).orElse(null);
    if (row != null) {
      for (String connectionId : new TreeSet<>(row.connections())) {
        registry.connectionItems().get(connectionId)
            .ifPresent(connection -> pages.addAll(worker.pagesOf(connection)));
      }
    }
    return pages;
  }

  WorkerException unknownConnection(String connectionId) {
    return new WorkerException(RefusalReason.UNKNOWN_CONNECTION, null, "connection '"
        + connectionId + "' is not on worker " + name + "; nothing was changed");
  }
}
