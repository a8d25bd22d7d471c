package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.worker.Tenant.Phase;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The logins of a {@link Worker}'s connections: the relabel in place, when the identity lives here
 * or nowhere, and the login tail, when it lives on another worker and the connection leaves by the
 * freezer. The contract is {@link Worker#login}'s.
 *
 * <p>Thread-safe, with the worker's locking ({@link LockOrder}): a relabel takes both users' locks
 * in name order, then the connection's row lock, then the guest owner's, and publishes under them;
 * the
 * login tail claims the previous owner's departure under his lock and writes the parcel on the disk
 * executor with the new identity's semaphore held and no lock held, then takes the previous owner's
 * lock again to apply and announce. The parcel goes to {@link Departures#root()}, asked at each try
 * of the semaphore: once a quit began, to the quit's root.
 */
final class Login {

  // the worker's own logger, so the log lines keep their origin
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final Worker worker;
  private final String name;
  private final String group;
  private final RegisterRegistry registry;
  private final Announcer announcer;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final SemaphoreTrips trips;
  private final Departures departures;
  private final IdentityLocator locator;
  /**
   * The connections a login relabelled here or a login tail handed over, each with the owner it
   * left (the newest
   * {@value #HANDED_OVER_REMEMBERED}): a call routed to that owner before the commander heard of
   * the login must be routed again, never make the connection anew here. Guarded by itself.
   */
  private final Map<String, String> handedOver = new java.util.LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > HANDED_OVER_REMEMBERED;
    }
  };

  /** How many handed-over connections are remembered. */
  static final int HANDED_OVER_REMEMBERED = 16_384;

  Login(Worker worker, String name, String group, RegisterRegistry registry,
      Announcer announcer, ConcurrentHashMap<String, Tenant> tenants, SemaphoreTrips trips,
      Departures departures, IdentityLocator locator) {
    this.worker = worker;
    this.name = name;
    this.group = group;
    this.registry = registry;
    this.announcer = announcer;
    this.tenants = tenants;
    this.trips = trips;
    this.departures = departures;
    this.locator = locator;
  }

  /**
   * Whether a login here (a relabel, or a login tail) took {@code connectionId} from {@code user}
   * to another identity: a call of that user on that connection was routed on maps that had not
   * heard of it yet (or the identity left since, the connection with him).
   */
  boolean handedOverFrom(String connectionId, String user) {
    synchronized (handedOver) {
      return user.equals(handedOver.get(connectionId));
    }
  }

  /** Logs a connection into {@code user}; the contract is {@link Worker#login}'s. */
  CompletableFuture<LoginOutcome> login(String connectionId, String user) {
    Objects.requireNonNull(user, "user");
    LockOrder.refuseInsideStoreAction(user); // before anything is made for him
    if (user.startsWith(RegisterRegistry.GUEST_PREFIX)) {
      registry.changeConnectionUser(connectionId, user, Map.of()); // refused, with its own words
    }
    ConnectionRow connection = registry.connectionItems().get(connectionId)
        .orElseThrow(() -> worker.unknownConnection(connectionId));
    String previous = connection.user();
    if (previous.equals(user)) {
      return CompletableFuture.completedFuture(LoginOutcome.RELABELLED);
    }
    Tenant from = tenants.get(previous);
    if (from == null) {
      throw worker.unknownConnection(connectionId);
    }
    IdentityLocator.Location location = locate(connectionId, user);
    if (location.elsewhereThan(name)) {
      return loginTail(from, connectionId, user);
    }
    relabel(from, connection, previous, user, location);
    return CompletableFuture.completedFuture(LoginOutcome.RELABELLED);
  }

  /** Asks the locator where {@code user} lives; no lock is held. */
  private IdentityLocator.Location locate(String connectionId, String user) {
    IdentityLocator.Location location;
    try {
      location = locator.locate(user);
    } catch (Exception e) {
      throw new WorkerException(RefusalReason.LOCATE_FAILED, user, "nobody could say where"
          + " '" + user + "' lives (" + e + "); connection '" + connectionId + "' was not logged in"
          + " and nothing was changed: retry the login", e);
    }
    if (location == null) {
      throw new WorkerException(RefusalReason.LOCATE_FAILED, user, "the identity locator"
          + " answered nothing for '" + user + "'; connection '" + connectionId + "' was not logged"
          + " in and nothing was changed: fix the locator, then retry");
    }
    return location;
  }

  private void relabel(Tenant from, ConnectionRow connection, String previous, String user,
      IdentityLocator.Location location) {
    UserRow previousRow = registry.userItems().get(previous)
        .orElseThrow(() -> worker.unknownConnection(connection.connectionId()));
    if (Worker.held(previousRow) && !Worker.held(connection)) {
      throw new WorkerException(RefusalReason.LOCK_ORDER, previous, "the login of"
          + " connection '" + connection.connectionId() + "' was asked while holding the lock of '"
          + previous + "' alone; nothing was changed: release it, or hold the connection's first");
    }
    Tenant to = activeTenant(user, location);
    boolean guest = previousRow.isGuest();
    boolean merges = guest && worker.application().mergesAtLogin(); // the guest's store is kept
    Tenant first = from.user.compareTo(to.user) < 0 ? from : to;
    Tenant second = first == from ? to : from;
    long deadline = System.nanoTime() + worker.rowWait().toNanos();
    Runnable departure = null;
    while (true) {
      UserRow identity = merges ? registry.userItems().get(user).orElse(null) : null;
      List<ReentrantLock> rows = new ArrayList<>(List.of(connection.lock()));
      if (guest) {
        rows.add(previousRow.lock());
      }
      if (identity != null) {
        rows.add(identity.lock()); // its store takes the guest's for the merges
      }
      ReentrantLock busy;
      boolean stale = false;
      first.lock.lock(); // the users' locks first, in name order, then the row locks, upwards
      second.lock.lock();
      try {
        busy = LockOrder.tryLockAll(rows); // tried, never waited for under the users' locks
        if (busy == null) {
          try {
            stale = merges && registry.userItems().get(user).orElse(null) != identity;
            if (!stale) {
              departure = relabelLocked(from, to, connection, previousRow, previous, user, guest,
                  identity);
            }
          } finally {
            LockOrder.unlockAll(rows);
          }
        }
      } finally {
        second.lock.unlock();
        first.lock.unlock();
      }
      if (stale) {
        continue; // the identity's row came or went before the locks: again, with the new one
      }
      if (busy == null) {
        break;
      }
      if (!LockOrder.awaitFree(busy, deadline)) {
        throw new WorkerException(RefusalReason.ROW_BUSY, previous, "the login of"
            + " connection '" + connection.connectionId() + "' into '" + user + "' waited "
            + worker.rowWait() + " for a call's store action on its rows; nothing was changed:"
            + " retry the login once that call is done");
      }
    }
    announcer.deliver();
    if (departure != null) { // the previous owner's departure waited for the calls that moved
      departure.run();
    }
  }

  /**
   * The relabel itself; the caller holds both users' locks and the rows'. Returns the previous
   * owner's departure to start once every lock is let go (the login took the calls it waited
   * for), or null.
   */
  private Runnable relabelLocked(Tenant from, Tenant to, ConnectionRow connection, UserRow previousRow,
      String previous, String user, boolean guest, UserRow identity) {
    if (!to.present() || to.phase() != Phase.ACTIVE) {
      throw new WorkerException(RefusalReason.USER_LEFT_MOVING, user, "'" + user
          + "' is leaving or being woken on worker " + name + "; connection '"
          + connection.connectionId() + "' was not logged in: retry");
    }
    boolean targetSeen = registry.userItems().contains(user);
    boolean transfer = !targetSeen && guest && previousRow.connections().size() == 1;
    Map<String, Object> guestStore = identity != null && targetSeen
        && previousRow.connections().size() == 1 ? Parcels.storeOf(previousRow) : null;
    registry.changeConnectionUser(connection.connectionId(), user, Map.of());
    synchronized (handedOver) { // a call routed to the previous owner meanwhile never remakes it
      handedOver.put(connection.connectionId(), previous);
    }
    if (guestStore != null && GuestMerges.kept(worker.application(), guestStore)) {
      GuestMerges.append(identity, guestStore); // the guest goes: his store waits for the merges
    }
    Runnable departure = from.moveSlots(connection.connectionId(), to, user);
    if (guest) {
      from.dropFlag(); // the guest's flag is dropped; a real previous owner keeps his
    }
    announcer.publish(AnnouncementKind.LOGIN, user, List.of(connection.connectionId()), previous);
    if (!targetSeen && !transfer) {
      announcer.publish(AnnouncementKind.NEW_USER, user, user);
    }
    if (!transfer && !registry.userItems().contains(previous)) {
      announcer.publish(AnnouncementKind.DROP_USER, previous, previous);
    }
    if (!registry.userItems().contains(previous)) { // his durable calls' writes went to him
      worker.durableCallsFollow(from, to);
    }
    if (!registry.userItems().contains(previous) && from.pending() == 0) {
      worker.leave(from, "logged in as '" + user + "'");
    }
    return departure;
  }

  /**
   * The tenant of {@code user} at the generation {@code location} names, made active (empty) when
   * absent and the location lets this worker create him; waits for a transition in progress. The
   * fence: an identity located here is relabelled into only at its generation, never into an empty
   * tenant made after his stay here ended (he was frozen since the answer): that is refused,
   * retryable, and the login is asked again.
   */
  private Tenant activeTenant(String user, IdentityLocator.Location location) {
    long generation = location.generation();
    while (true) {
      Tenant tenant = location.createsOn(name)
          ? tenants.computeIfAbsent(user, u -> new Tenant(u, generation)) : tenants.get(user);
      if (tenant == null) {
        throw staleLocation(user, generation, null);
      }
      CompletableFuture<Void> transition;
      tenant.lock.lock();
      try {
        if (!tenant.locatedAt(generation)) {
          throw staleLocation(user, generation, tenant.generation());
        }
        if (!tenant.present()) {
          continue;
        }
        if (tenant.phase() == Phase.ACTIVE) {
          if (departures.quitting()) {
            tenant.transferIfUnflagged();
          }
          return tenant;
        }
        transition = tenant.transition();
      } finally {
        tenant.lock.unlock();
      }
      transition.handle((ignored, failure) -> null).join();
    }
  }

  private CompletableFuture<LoginOutcome> loginTail(Tenant from, String connectionId, String user) {
    CompletableFuture<Object> result = new CompletableFuture<>();
    Runnable start = null;
    from.lock.lock();
    try {
      if (!from.claimLoginTail(result, () -> runLoginTail(from, connectionId, user, result))) {
        return CompletableFuture.failedFuture(new WorkerException(RefusalReason.USER_LEFT_MOVING,
            from.user, "'" + from.user + "' is already leaving worker " + name + "; connection '"
                + connectionId + "' was not handed over: retry once he is gone or back"));
      }
      start = from.startIfIdle();
    } finally {
      from.lock.unlock();
    }
    if (start != null) {
      start.run();
    }
    return result.thenApply(outcome -> (LoginOutcome) outcome);
  }

  private void runLoginTail(Tenant from, String connectionId, String user,
      CompletableFuture<Object> result) {
    trips.run(departures::root, user, "login", into -> { // the quit's root once it began
      handOver(from, connectionId, user, into);
      return null;
    }).whenComplete((ignored, failure) -> {
      if (failure == null) {
        announcer.afterDelivered(() -> result.complete(LoginOutcome.HANDED_OVER));
      } else {
        Throwable cause = Worker.unwrap(failure);
        LOG.log(Level.WARNING, "the login tail of connection '" + connectionId + "' into '" + user
            + "' failed on worker " + name + "; the connection stays alive here as it was", cause);
        from.lock.lock();
        try {
          from.tailFailed();
        } finally {
          from.lock.unlock();
        }
        result.completeExceptionally(cause);
      }
      departures.afterDeparture();
    });
  }

  /**
   * The disk trip of a login tail, the new identity's semaphore held. Row locks are tried, never
   * waited for: a busy one throws {@link LockOrder.RowBusy} with nothing left written, and the trip
   * tries again later.
   */
  private void handOver(Tenant from, String connectionId, String user, Freezer into)
      throws IOException {
    ConnectionRow connection = registry.connectionItems().get(connectionId)
        .orElseThrow(() -> worker.unknownConnection(connectionId));
    String previous = connection.user();
    UserRow owner = registry.userItems().get(previous).orElseThrow();
    boolean ownerGoes = owner.connections().size() == 1;
    Map<String, Object> carried = owner.isGuest() && ownerGoes ? Parcels.storeOf(owner) : null;
    List<PageRow> pages = worker.pagesOf(connection);
    Map<String, Object> parcel = Parcels.connection(connection, pages, carried,
        worker.stateVersion());
    parcel.put(Parcels.HANDED_OVER, true);
    try {
      into.writeConnectionParcel(user, connectionId, parcel, name, "login", group);
    } catch (IOException | RuntimeException e) {
      try {
        into.dropConnectionParcel(user, connectionId);
      } catch (IOException | RuntimeException dropFailure) {
        e.addSuppressed(dropFailure);
      }
      throw new WorkerException(RefusalReason.FREEZER_FAILED, user, "the freezer refused"
          + " the parcel of connection '" + connectionId + "' under '" + user + "' ("
          + e.getMessage() + "); the connection stays alive on worker " + name + " as it was and"
          + " nothing was announced: retry the login once the freezer is fixed", e);
    }
    List<String> pageIds = new ArrayList<>();
    pages.forEach(page -> pageIds.add(page.pageId()));
    ReentrantLock busy;
    List<CompletableFuture<Void>> durableCalls = List.of();
    from.lock.lock();
    try {
      List<ReentrantLock> pageLocks = worker.pageLocks(pages); // the detach seam's, tried
      busy = LockOrder.tryLockAll(pageLocks);
      if (busy == null) {
        try {
          registry.dropConnection(connectionId);
        } finally {
          LockOrder.unlockAll(pageLocks);
        }
        synchronized (handedOver) {
          handedOver.put(connectionId, previous);
        }
        announcer.publish(AnnouncementKind.LOGIN, user, List.of(connectionId), previous);
        if (!pageIds.isEmpty()) {
          announcer.publish(AnnouncementKind.DROP_PAGES, previous, pageIds, null);
        }
        announcer.publish(AnnouncementKind.DROP_CONNECTION, previous, connectionId);
        if (ownerGoes) {
          announcer.publish(AnnouncementKind.DROP_USER, previous, previous);
          durableCalls = worker.takeDurableCalls(from); // what they wrote is in the parcel
          worker.leave(from, "logged in elsewhere as '" + user + "'");
        }
        from.handedOver(!ownerGoes);
      }
    } finally {
      from.lock.unlock();
    }
    if (busy != null) { // nothing was dropped: take the parcel back, then try again later
      into.dropConnectionParcel(user, connectionId);
      throw new LockOrder.RowBusy("a page row of connection '" + connectionId + "'");
    }
    worker.settleDurableCalls(user, durableCalls); // the parcel forced, his semaphore held
    announcer.deliver();
  }


  private WorkerException staleLocation(String user, long generation, Long held) {
    return new WorkerException(RefusalReason.STALE_GRANT, user, "'" + user + "' was"
        + " located on worker " + name + " at generation " + generation + ", but "
        + (held == null ? "he is not here any more" : "he is here at generation " + held)
        + "; the connection was not logged in and nothing was changed: retry the login");
  }
}
