package dev.cryo.worker;

import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.worker.Tenant.Phase;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a {@link Worker}'s calls are let in and out: the user a call is for, his tenant found or
 * made, his wake when the call brings the verdict, the wait for a wake or a departure in progress,
 * the request slot opened, the connection adopted or born, the page born, the clocks stamped; and
 * the slot's close, which starts the departure that waited for it. The contracts are
 * {@link Worker#openRequest}, {@link Worker#ping} and {@link RequestSlot#close()}'s.
 *
 * <p>Thread-safe, with the worker's locking ({@link LockOrder}): tenants are found, made and
 * changed under their tenant lock; births are published under it and delivered after it; a call
 * waits for a transition with no lock held.
 */
final class Admission {

  private final Worker worker;
  private final String name;
  private final Clock clock;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Announcer announcer;
  private final Departures departures;
  private final Waking waking;
  private final Login login;
  private final AtomicLong servedCalls;

  Admission(Worker worker, String name, Clock clock, ConcurrentHashMap<String, Tenant> tenants,
      RegisterRegistry registry, Announcer announcer, Departures departures, Waking waking,
      Login login, AtomicLong servedCalls) {
    this.worker = worker;
    this.name = name;
    this.clock = clock;
    this.tenants = tenants;
    this.registry = registry;
    this.announcer = announcer;
    this.departures = departures;
    this.waking = waking;
    this.login = login;
    this.servedCalls = servedCalls;
  }

  /** A test's seam: runs between the owner's lookup and the tenant's lock; null in service. */
  volatile Runnable afterOwnerOf;

  /** Opens a request slot for a real call; the contract is {@link Worker#openRequest}'s. */
  RequestSlot openRequest(Arrival arrival) {
    String user = ownerOf(arrival);
    Runnable seam = afterOwnerOf;
    if (seam != null) {
      seam.run();
    }
    RequestSlot slot = enter(user, arrival);
    boolean opened = false;
    try {
      ensureChain(slot);
      stamp(arrival.pageId(), arrival.connectionId(), arrival.clocks());
      opened = true;
      return slot;
    } finally {
      if (!opened) {
        slot.close();
      }
    }
  }

  /** Stamps a ping's clocks if the page is here; the contract is {@link Worker#ping}'s. */
  boolean ping(String pageId) {
    Optional<PageRow> page = registry.pageItems().get(pageId);
    if (page.isEmpty()) {
      return false;
    }
    stamp(pageId, page.get().connectionId(), Arrival.Clocks.REFRESH);
    return true;
  }

  /** A ping from a connection without a page: stamps the connection and its user, if here. */
  void pingConnection(String connectionId) {
    if (registry.connectionItems().contains(connectionId)) {
      stamp(null, connectionId, Arrival.Clocks.REFRESH);
    }
  }

  /** The user a call is for: the connection's owner when it is here, else the call's, else its guest. */
  private String ownerOf(Arrival call) {
    Optional<ConnectionRow> connection = registry.connectionItems().get(call.connectionId());
    if (connection.isPresent()) {
      String owner = connection.get().user();
      if (call.user() != null && !call.user().equals(owner)) {
        throw new WorkerException(RefusalReason.USER_MISMATCH, call.user(), "connection '"
            + call.connectionId() + "' belongs to '" + owner + "' on worker " + name + ", not to '"
            + call.user() + "'; nothing was served: route the call as '" + owner
            + "', or log the connection in first");
      }
      return owner;
    }
    return call.user() != null ? call.user() : Parcels.guestOf(call.connectionId());
  }

  /**
   * Finds or makes the user's tenant and opens a slot; wakes him when told. A call that finds him
   * being woken opens its slot at once and waits for the wake: a departure ordered meanwhile waits
   * for the calls that pulled him, not only for the pull.
   *
   * <p>The fence ({@link Grant}): a tenant is made only by a birth or a wake grant, at the grant's
   * generation; a tenant is served only at his own generation. A tenant leaving is waited for
   * first, whatever the grant: the grant is judged against what he is once he is gone or back.
   */
  private RequestSlot enter(String user, Arrival call) {
    Grant grant = call.grant();
    while (true) {
      refuseIfFinished(user);
      Tenant tenant = tenants.get(user);
      boolean wake = false;
      if (tenant == null) {
        if (!grant.creates()) {
          throw stale(user, grant, null);
        }
        Tenant fresh = new Tenant(user, grant.generation());
        fresh.lock.lock();
        try {
          if (tenants.putIfAbsent(user, fresh) != null) {
            continue;
          }
          if (departures.quitting()) {
            fresh.transferIfUnflagged(); // the plan of a quit is terminal: late arrivals leave too
          }
          if (call.wakes() && !registry.userItems().contains(user)) {
            startUnfreezing(fresh);
            wake = true;
          }
        } finally {
          fresh.lock.unlock();
        }
        tenant = fresh;
      }
      CompletableFuture<Void> transition;
      Phase phase;
      RequestSlot slot = null;
      tenant.lock.lock();
      try {
        if (!tenant.present()) {
          continue;
        }
        boolean hasRows = registry.userItems().contains(user);
        boolean rowless = tenant.rowless(hasRows);
        switch (tenant.fence(grant, hasRows)) {
          case OTHER_GENERATION -> throw stale(user, grant, tenant);
          case NOT_LIVE -> throw stale(user, grant, null); // dropped under calls in flight
          case PASSED -> { }
        }
        if (!wake && call.wakes() && rowless) {
          // Present without rows (his calls outlived them): the verdict is honoured all the same.
          startUnfreezing(tenant);
          wake = true;
        }
        phase = tenant.phase();
        transition = tenant.transition();
        if (phase != Phase.LEAVING) {
          slot = open(tenant, call);
        }
      } finally {
        tenant.lock.unlock();
      }
      if (wake) {
        waking.startWake(tenant, grant.parcelGeneration());
      }
      try {
        transition.join(); // the wake or the departure, never another call's service
      } catch (CompletionException | java.util.concurrent.CancellationException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (cause instanceof WorkerException refusal
            && (refusal.reason() == RefusalReason.NO_PARCEL
                || refusal.reason() == RefusalReason.UNREADABLE_PARCEL)) {
          throw new WorkerException(refusal.reason(), user, refusal.getMessage(), refusal);
        }
        throw new WorkerException(RefusalReason.WAKE_FAILED, user, "waking '" + user
            + "' on worker " + name + " failed (" + cause.getMessage() + "); no row and no"
            + " semaphore were left: retry the call", cause);
      }
      if (slot != null) {
        departures.kickIfFlagged(tenant);
        return slot;
      }
      if (!call.wakes()) {
        tenant.lock.lock();
        try {
          if (!tenant.present()) {
            throw WorkerException.userLeft(user, tenant.leftTo(), "'" + user + "' left worker "
                + name + " (" + tenant.leftBecause() + ") while the call waited; nothing was served: "
                + (tenant.leftTo() == WorkerException.Where.FROZEN
                    ? "route the call again, with the verdict frozen"
                    : "route the call again from the maps as the announcements left them"));
          }
        } finally {
          tenant.lock.unlock();
        }
      }
    }
  }

  /** The refusal of a call whose grant does not fit the tenant the worker holds (or none). */
  private WorkerException stale(String user, Grant grant, Tenant tenant) {
    return new WorkerException(RefusalReason.STALE_GRANT, user, (tenant == null
        ? "'" + user + "' is not on worker " + name + ", and the call's grant (" + grant
            + ") creates nobody"
        : "worker " + name + " holds '" + user + "' at generation " + tenant.generation()
            + ", not at the call's grant (" + grant + ")")
        + "; nothing was served or created: the call was decided on a stale reading of the maps,"
        + " route it again from them");
  }

  /** Marks a tenant being woken, with his placeholder row; the caller holds his lock. */
  private void startUnfreezing(Tenant tenant) {
    tenant.startWaking();
    registry.newUser(tenant.user, Map.of(UserState.FIELD, UserState.UNFREEZING.code()));
  }

  /**
   * Opens the call's slot on {@code tenant}, under his lock. A connection here that is no longer
   * his (a login relabelled it between {@link #ownerOf} and this lock; a login takes both users'
   * locks, and moves the slots open then) is refused: served as his, its handler would reach the
   * new owner's state outside the new owner's turn.
   */
  private RequestSlot open(Tenant tenant, Arrival call) {
    Optional<ConnectionRow> connection = registry.connectionItems().get(call.connectionId());
    if (connection.isPresent() && !connection.get().user().equals(tenant.user)) {
      throw new WorkerException(RefusalReason.USER_MISMATCH, tenant.user, "connection '"
          + call.connectionId() + "' was logged into '" + connection.get().user() + "' on worker "
          + name + " while this call for '" + tenant.user + "' came in; nothing was served: route"
          + " the call again from the maps, which hear of the login");
    }
    RequestSlot slot = new RequestSlot(worker, tenant, call);
    tenant.open(slot);
    return slot;
  }

  /** Closes a slot; the contract is {@link RequestSlot#close()}'s. */
  void close(RequestSlot slot) {
    Runnable start = null;
    Tenant tenant;
    while (true) {
      tenant = slot.tenant;
      tenant.lock.lock();
      try {
        if (slot.tenant != tenant) {
          continue; // moved by a login meanwhile
        }
        Tenant.Closed closed = tenant.close(slot);
        if (closed == Tenant.Closed.NOT_OPEN) {
          return; // closed already, or cut by a quit
        }
        servedCalls.incrementAndGet();
        if (closed == Tenant.Closed.DEPARTING) {
          start = tenant.startClaimed();
        } else if (closed == Tenant.Closed.IDLE && !registry.userItems().contains(tenant.user)) {
          worker.leave(tenant, "no rows left");
        } else if (closed == Tenant.Closed.IDLE) {
          worker.closedIdle(tenant);
        }
      } finally {
        tenant.lock.unlock();
      }
      break;
    }
    if (start != null) {
      start.run();
    }
    departures.kickIfFlagged(tenant);
    departures.checkQuitFinished();
  }

  /** The connection from its parcel when there is one; then the births the call needs. */
  private void ensureChain(RequestSlot slot) {
    Tenant tenant = slot.tenant;
    String user = slot.user();
    Arrival call = slot.arrival();
    if (!registry.connectionItems().contains(call.connectionId())) {
      waking.adoptConnectionIfParcelled(tenant, user, call.connectionId());
      if (!registry.connectionItems().contains(call.connectionId())
          && login.handedOverFrom(call.connectionId(), user)) {
        throw new WorkerException(RefusalReason.USER_MISMATCH, user, "connection '"
            + call.connectionId() + "' was handed over from '" + user + "' to another identity by"
            + " a login on worker " + name + "; nothing was served or created: route the call"
            + " again from the maps, which hear of the login");
      }
    }
    if (call.pageId() == null) {
      if (!registry.connectionItems().contains(call.connectionId())) {
        if (!user.startsWith(RegisterRegistry.GUEST_PREFIX) && call.grant().generation() != 0) {
          // An identity's connection is born a guest's and comes by a login: none here, and no
          // parcel of it in his folder, means its parcel went missing. Made anew, said.
          System.getLogger(Worker.class.getName()).log(System.Logger.Level.WARNING,
              "connection '" + call.connectionId() + "' of '" + user + "' reached worker " + name
              + " with no row and no parcel of it in his folder; it is made anew, empty");
        }
        newConnection(user, call.connectionId());
      }
      return;
    }
    Optional<PageRow> page = registry.pageItems().get(call.pageId());
    if (page.isPresent()) {
      if (!page.get().connectionId().equals(call.connectionId())) {
        throw new WorkerException(RefusalReason.USER_MISMATCH, user, "page '"
            + call.pageId() + "' hangs from connection '" + page.get().connectionId() + "', not '"
            + call.connectionId() + "'; nothing was served: route the call with its own connection");
      }
      return;
    }
    newPage(user, call.connectionId(), call.pageId(), call.pageFields());
  }

  /** Brings a connection without pages (and its user when unseen) into being, announced as births. */
  private void newConnection(String user, String connectionId) {
    Tenant tenant = tenants.get(user);
    if (tenant == null) {
      throw new WorkerException(RefusalReason.USER_LEFT_MOVING, user, "'" + user + "' is not on"
          + " worker " + name + "; connection '" + connectionId + "' was not created: route the"
          + " call again");
    }
    tenant.lock.lock();
    try {
      boolean userSeen = registry.userItems().contains(user);
      try {
        registry.newConnection(connectionId, user, Map.of());
      } catch (RegisterException e) {
        if (e.reason() == RegisterException.Reason.DUPLICATE_KEY
            && registry.connectionItems().get(connectionId)
                .map(row -> row.user().equals(user)).orElse(false)) {
          return; // born by a sister call meanwhile
        }
        if (e.reason() == RegisterException.Reason.DUPLICATE_KEY) {
          throw new WorkerException(RefusalReason.USER_MISMATCH, user, "connection '"
              + connectionId + "' was born meanwhile for another user on worker " + name
              + "; nothing was served: route the call as its owner", e);
        }
        throw e;
      }
      if (!userSeen) {
        announcer.publish(AnnouncementKind.NEW_USER, user, user);
      }
      announcer.publish(AnnouncementKind.NEW_CONNECTION, user, connectionId);
    } finally {
      tenant.lock.unlock();
    }
    announcer.deliver();
  }

  /** Brings a page (and its connection and user when unseen) into being, announced as births. */
  void newPage(String user, String connectionId, String pageId, Map<String, ?> fields) {
    Tenant tenant = tenants.get(user);
    if (tenant == null) {
      throw new WorkerException(RefusalReason.USER_LEFT_MOVING, user, "'" + user + "' is not on"
          + " worker " + name + "; page '" + pageId + "' was not created: open a call for him first");
    }
    tenant.lock.lock();
    try {
      if (tenant.phase() == Phase.LEAVING) { // a call cut by a quit, under its user's departure
        boolean tail = tenant.inLoginTail();
        throw WorkerException.userLeft(user, tail ? WorkerException.Where.MOVING
            : WorkerException.Where.FROZEN, "'" + user + "' is leaving worker " + name + " (his"
            + " call was cut by a quit); page '" + pageId + "' was not created: nothing a cut"
            + " call does after its cut is kept");
      }
      boolean userSeen = registry.userItems().contains(user);
      boolean connectionSeen = registry.connectionItems().contains(connectionId);
      try {
        registry.newPage(pageId, user, connectionId, fields);
      } catch (RegisterException e) {
        if (e.reason() == RegisterException.Reason.DUPLICATE_KEY
            && registry.pageItems().contains(pageId)) {
          return; // born by a sister call meanwhile
        }
        if (e.reason() == RegisterException.Reason.USER_MISMATCH) {
          throw new WorkerException(RefusalReason.USER_MISMATCH, user, e.getMessage(), e);
        }
        throw e;
      }
      if (!userSeen) {
        announcer.publish(AnnouncementKind.NEW_USER, user, user);
      }
      if (!connectionSeen) {
        announcer.publish(AnnouncementKind.NEW_CONNECTION, user, connectionId);
      }
      announcer.publish(AnnouncementKind.NEW_PAGE, user, List.of(pageId), connectionId);
    } finally {
      tenant.lock.unlock();
    }
    announcer.deliver();
  }

  /**
   * Stamps the clocks of a page (unless {@code pageId} is null), its connection and its user, in that
   * order, each row by itself.
   */
  private void stamp(String pageId, String connectionId, Arrival.Clocks kind) {
    Instant now = clock.instant();
    Map<String, Object> clocks = new HashMap<>(4);
    clocks.put(Parcels.LAST_REFRESH_TS, now);
    if (kind != Arrival.Clocks.REFRESH) {
      clocks.put(Parcels.LAST_RPC_TS, now);
    }
    if (kind == Arrival.Clocks.USER) {
      clocks.put(Parcels.LAST_USER_TS, now);
    }
    try {
      if (pageId != null) {
        registry.pageItems().update(pageId, clocks);
      }
      ConnectionRow connection = registry.connectionItems().update(connectionId, clocks);
      registry.userItems().update(connection.user(), clocks);
    } catch (RegisterException e) {
      if (e.reason() != RegisterException.Reason.UNKNOWN_KEY) {
        throw e;
      }
      // The row left meanwhile (a cut straggler, a drop): nothing to stamp.
    }
  }

  private void refuseIfFinished(String user) {
    if (departures.finished()) {
      throw new WorkerException(RefusalReason.WORKER_FINISHED, user, "worker " + name
          + " has quit; nothing was served: route the call to another worker");
    }
  }
}
