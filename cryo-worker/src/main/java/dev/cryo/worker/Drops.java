package dev.cryo.worker;

import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import dev.cryo.worker.Announcement.Kind;
import dev.cryo.worker.Tenant.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The drops of a {@link Worker}'s rows ordered from above — a user, a connection, a page — each
 * with its cascade and its announcements. The contracts are {@link Worker#dropUser},
 * {@link Worker#dropConnection} and {@link Worker#dropPage}'s.
 *
 * <p>Thread-safe, with the worker's locking: each drop changes the registry and publishes under
 * the user's tenant lock, and delivers after it.
 */
final class Drops {

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
   * @return whether he was here
   */
  boolean dropUser(String user) {
    Tenant tenant = tenants.get(user);
    if (tenant == null) {
      return false;
    }
    boolean dropped;
    List<String> closed = new ArrayList<>();
    tenant.lock.lock();
    try {
      dropped = tenant.phase == Phase.ACTIVE && dropAnnounced(user, closed);
      if (dropped && tenant.slots.isEmpty()) {
        worker.leave(tenant, "dropped");
      }
    } finally {
      tenant.lock.unlock();
    }
    announcer.flush();
    worker.pagesClosed(user, closed);
    return dropped;
  }

  /**
   * Drops a user's tree with its announcements; the caller holds his tenant lock. The pages dropped
   * are added to {@code closed}, for {@link Application#pagesClosed}.
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
      announcer.publish(Kind.DROP_PAGES, user, pageIds, null);
    }
    if (!connectionIds.isEmpty()) {
      announcer.publish(Kind.DROP_CONNECTIONS, user, connectionIds, null);
    }
    announcer.publish(Kind.DROP_USER, user, user);
    return true;
  }

  /**
   * Drops a connection with its pages ({@code drop_pages}, {@code drop_connection}), and its user
   * when it was his last ({@code drop_user}).
   *
   * @throws WorkerException {@link WorkerException.Reason#UNKNOWN_CONNECTION} when it is not here
   */
  void dropConnection(String connectionId) {
    ConnectionRow connection = registry.connectionItems().get(connectionId)
        .orElseThrow(() -> unknownConnection(connectionId));
    Tenant tenant = tenants.get(connection.user());
    if (tenant == null) {
      throw unknownConnection(connectionId);
    }
    List<String> closed = new ArrayList<>();
    tenant.lock.lock();
    try {
      String user = tenant.user;
      UserRow owner = registry.userItems().get(user).orElse(null);
      if (owner == null || !owner.connections().contains(connectionId)) {
        throw unknownConnection(connectionId);
      }
      List<String> pageIds = new ArrayList<>(new TreeSet<>(connection.pages()));
      closed.addAll(pageIds);
      boolean userGoes = owner.connections().size() == 1;
      registry.dropConnection(connectionId);
      if (!pageIds.isEmpty()) {
        announcer.publish(Kind.DROP_PAGES, user, pageIds, null);
      }
      announcer.publish(Kind.DROP_CONNECTION, user, connectionId);
      if (userGoes) {
        announcer.publish(Kind.DROP_USER, user, user);
        if (tenant.slots.isEmpty()) {
          worker.leave(tenant, "dropped");
        }
      }
    } finally {
      tenant.lock.unlock();
    }
    announcer.flush();
    worker.pagesClosed(tenant.user, closed);
  }

  /**
   * Drops a page ({@code drop_page}); its connection goes with its last page
   * ({@code drop_connection}) and the user with his last connection ({@code drop_user}). Silent when
   * the page is not here.
   *
   * @return whether it was here
   */
  boolean dropPage(String pageId) {
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
    tenant.lock.lock();
    try {
      PageRow page = registry.pageItems().get(pageId).orElse(null);
      if (page == null) {
        return false;
      }
      ConnectionRow connection = registry.connectionItems().get(page.connectionId()).orElseThrow();
      boolean connectionGoes = connection.pages().size() == 1;
      boolean userGoes = connectionGoes
          && registry.userItems().get(user).map(row -> row.connections().size() == 1).orElse(false);
      registry.dropPage(pageId);
      announcer.publish(Kind.DROP_PAGE, user, pageId);
      if (connectionGoes) {
        announcer.publish(Kind.DROP_CONNECTION, user, connection.connectionId());
      }
      if (userGoes) {
        announcer.publish(Kind.DROP_USER, user, user);
        if (tenant.slots.isEmpty()) {
          worker.leave(tenant, "dropped");
        }
      }
    } finally {
      tenant.lock.unlock();
    }
    announcer.flush();
    worker.pagesClosed(user, List.of(pageId));
    return true;
  }

  WorkerException unknownConnection(String connectionId) {
    return new WorkerException(WorkerException.Reason.UNKNOWN_CONNECTION, null, "connection '"
        + connectionId + "' is not on worker " + name + "; nothing was changed");
  }
}
