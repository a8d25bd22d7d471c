package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The departures of a {@link Worker}'s users as they run: the claim of a departure (at once, or
 * when the user's last call closes), the freeze — snapshot, parcels, then memory emptied and
 * {@code user_frozen} announced — and the expiry. {@link Departures} decides who leaves and when;
 * this class makes each departure happen. The contract is {@link Worker#freezeUser}'s.
 *
 * <p>Thread-safe, with the worker's locking: a departure is claimed under the user's tenant lock;
 * its disk trip runs on the disk executor with the user's semaphore held and no lock held while
 * writing; memory is emptied and the departure announced under the tenant lock again.
 */
final class Freezing {

  // the worker's own logger, so the log lines keep their origin
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final Worker worker;
  private final String name;
  private final String group;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Announcer announcer;
  private final SemaphoreTrips trips;
  private final Departures departures;
  private final Drops drops;
  private final Schedule schedule;
  private final Clock clock;
  private final Duration retryInterval;
  private final AtomicLong freezeFailures = new AtomicLong();

  Freezing(Worker worker, String name, String group, ConcurrentHashMap<String, Tenant> tenants,
      RegisterRegistry registry, Announcer announcer, SemaphoreTrips trips, Departures departures,
      Drops drops, Schedule schedule, Duration retryInterval) {
    this.schedule = schedule;
    this.clock = schedule.clock();
    this.retryInterval = retryInterval;
    this.worker = worker;
    this.name = name;
    this.group = group;
    this.tenants = tenants;
    this.registry = registry;
    this.announcer = announcer;
    this.trips = trips;
    this.departures = departures;
    this.drops = drops;
  }

  /**
   * The causes of the departures that drop a guest who holds nothing instead of freezing him: the
   * idle valve's and the heap valve's, the worker's own passivations. A freeze the commander orders
   * (a move, a drain's, a plan's transfer) and a quit's keep freezing everybody: the commander
   * expects him frozen, and a drain carries whom it can.
   */
  static final java.util.Set<String> DROPS_EMPTY_GUESTS = java.util.Set.of(
      Departures.IDLE_CAUSE, HeapValve.CAUSE);

  /**
   * Whether {@code tenant} is a guest whom a freeze would write for nothing, so that a passivation
   * drops him instead: a guest ({@link RegisterRegistry#GUEST_PREFIX}) who never had a checkpoint
   * written, whose user store and every connection's store are empty, and whose connections hold no
   * page (a page is his tab's: its socket, pushes and next calls name it, so a guest with one is
   * frozen, and a page that holds nothing is marked by {@link #freeze} as before). He loses
   * nothing: his next request, with the cookie he had, finds his connection unknown and is a new
   * guest's. Called under his tenant lock with no call of his in flight; a store whose row another
   * thread holds counts as not empty ({@link Parcels#storeEmpty}).
   */
  private boolean emptyGuest(Tenant tenant) {
    if (!tenant.user.startsWith(RegisterRegistry.GUEST_PREFIX) || tenant.parcelsInFreezer()) {
      return false;
    }
    UserRow row = registry.userItems().get(tenant.user).orElse(null);
    if (row == null || !Parcels.storeEmpty(row)) {
      return false;
    }
    for (String connectionId : row.connections()) {
      ConnectionRow connection = registry.connectionItems().get(connectionId).orElse(null);
      if (connection != null && (!connection.pages().isEmpty()
          || !Parcels.storeEmpty(connection))) {
        return false;
      }
    }
    return true;
  }

  /** How many departures the disk refused since the worker started. */
  long failures() {
    return freezeFailures.get();
  }

  /**
   * Orders a departure; the contract is {@link Worker#freezeUser}'s, with the cause. An expiry
   * ({@code expire}, or the user's {@link TransferFlag#EXPIRY} when the departure starts or empties
   * memory) drops him instead of freezing him. {@code force} (a quit's cut) starts a departure
   * claimed for him at once, calls in flight or not, and a login tail waiting for them too. A
   * {@code generation} of 0 or more fences the order: a stay of the user at another generation is
   * {@link FreezeOutcome#NOT_HOSTED}, untouched; -1 orders any stay.
   */
  @SuppressWarnings("unchecked")
  CompletableFuture<FreezeOutcome> depart(String user, boolean expire, String cause,
      boolean force, long generation) {
    Tenant tenant = tenants.get(user);
    if (tenant == null) {
      return CompletableFuture.completedFuture(FreezeOutcome.NOT_HOSTED);
    }
    Tenant.Claim claim;
    tenant.lock.lock();
    try {
      claim = tenant.claimDeparture(generation, force, registry.userItems().contains(user),
          result -> () -> runDeparture(tenant, expire, cause, result));
    } finally {
      tenant.lock.unlock();
    }
    if (claim == null) {
      return CompletableFuture.completedFuture(FreezeOutcome.NOT_HOSTED);
    }
    if (claim.start() != null) {
      claim.start().run();
    }
    CompletableFuture<Void> waitWake = claim.waitFirst();
    CompletableFuture<Object> result = claim.result();
    if (waitWake != null) { // the departure waits for the wake (or the login tail) in progress
      return waitWake.handle((ignored, failure) -> null)
          .thenCompose(ignored -> depart(user, expire, cause, force, generation));
    }
    return (CompletableFuture<FreezeOutcome>) (CompletableFuture<?>) result; // one future per departure
  }

  private void runDeparture(Tenant tenant, boolean expire, String cause,
      CompletableFuture<Object> result) {
    boolean rowless;
    boolean cut;
    boolean empty = false;
    tenant.lock.lock();
    try {
      cut = tenant.takeCut();
      rowless = !registry.userItems().contains(tenant.user);
      if (rowless) { // dropped under the calls the departure waited for: nothing left to move
        worker.leave(tenant, "dropped");
        tenant.departed();
      }
      expire |= tenant.expiryOrdered(); // an expiry order wins over a claimed freeze
      if (!rowless && !expire && !cut && DROPS_EMPTY_GUESTS.contains(cause)
          && !departures.quitting()) {
        empty = emptyGuest(tenant);
      }
    } finally {
      tenant.lock.unlock();
    }
    if (rowless) {
      announcer.afterDelivered(() -> result.complete(FreezeOutcome.NOT_HOSTED));
      departures.afterDeparture();
      return;
    }
    if (expire || empty) {
      runExpiry(tenant, result, clock.instant().plus(worker.rowWait()), cut);
      return;
    }
    if (!cut) { // a cut call may hold his rows forever: the hook, which waits for them, is skipped
      worker.beforeFreeze(tenant.user, cause);
    }
    List<String> closed = new ArrayList<>(); // the pages of an expiry ordered during the trip
    trips.run(departures::root, tenant.user, cause, into -> freeze(tenant, into, cause, closed))
        .whenComplete((outcome, failure) -> {
          if (failure == null) {
            if (!cut) { // the semaphore given back already; a cut call may hold the user's turn
              worker.pagesClosed(tenant.user, closed);
            }
            announcer.afterDelivered(() -> result.complete(outcome));
          } else {
            Throwable cause2 = Worker.unwrap(failure);
            freezeFailures.incrementAndGet();
            departures.count(q -> q.failed.incrementAndGet());
            LOG.log(Level.WARNING, "freezing '" + tenant.user + "' on worker " + name + " failed;"
                + " he stays alive and active here (failure " + freezeFailures.get() + ")", cause2);
            tenant.lock.lock();
            try {
              tenant.freezeFailed();
            } finally {
              tenant.lock.unlock();
            }
            result.completeExceptionally(cause2);
          }
          departures.afterDeparture();
        });
  }

  /**
   * The expiry, and the drop of a guest who holds nothing ({@link #emptyGuest}): his rows dropped
   * and announced ({@code drop_connections}, {@code drop_user}, as a {@code forget()} is), nothing
   * written, the application told of the pages closed unless his calls were {@code cut} (they may
   * hold his turn). The page locks the registry's
   * detach seam takes are tried under his lock, never waited for: a busy one is tried again on the
   * schedule until {@code deadline}, then the departure fails, counted, and he stays as he was.
   */
  private void runExpiry(Tenant tenant, CompletableFuture<Object> result, Instant deadline,
      boolean cut) {
    PageRow busy = null;
    List<String> closed = new ArrayList<>();
    tenant.lock.lock();
    try {
      List<PageRow> pages = drops.pagesOfUser(tenant.user);
      List<ReentrantLock> pageLocks = worker.pageLocks(pages);
      ReentrantLock held = LockOrder.tryLockAll(pageLocks);
      if (held != null) {
        busy = pages.get(pageLocks.indexOf(held));
      } else {
        try {
          drops.dropAnnounced(tenant.user, closed);
        } finally {
          LockOrder.unlockAll(pageLocks);
        }
        departures.count(q -> q.dropped.incrementAndGet()); // before he leaves: a quit may finish
        worker.leave(tenant, "expired");
        tenant.departed();
      }
    } finally {
      tenant.lock.unlock();
    }
    if (busy == null) {
      announcer.deliver();
      if (!cut) { // the hook waits for the user's turn, which a cut call may hold for ever
        worker.pagesClosed(tenant.user, closed);
      }
      announcer.afterDelivered(() -> result.complete(FreezeOutcome.DROPPED));
      departures.afterDeparture();
    } else if (clock.instant().isBefore(deadline)) {
      schedule.schedule(retryInterval, () -> runExpiry(tenant, result, deadline, cut));
    } else {
      WorkerException failure = new WorkerException(RefusalReason.ROW_BUSY, tenant.user,
          "page '" + busy.pageId() + "' of '" + tenant.user + "' stayed locked by a call's store"
              + " action for " + worker.rowWait() + "; his expiry was given up and nothing was"
              + " dropped: he stays alive here, flagged, until the call returns and a plan asks"
              + " again");
      departures.count(q -> q.failed.incrementAndGet());
      LOG.log(Level.WARNING, "the expiry of '" + tenant.user + "' on worker " + name + " failed",
          failure);
      tenant.lock.lock();
      try {
        tenant.expiryFailed(); // counted and logged; the flag stays, riding the photo
      } finally {
        tenant.lock.unlock();
      }
      result.completeExceptionally(failure);
      departures.afterDeparture();
    }
  }

  /**
   * A user's parcels as his rows hold them now: his user parcel (at his stay's generation), the
   * parcel of each connection still registered, and the pages they hold.
   */
  record Snapshot(Map<String, Object> userParcel,
      Map<String, Map<String, Object>> connectionParcels, List<PageRow> pages) {}

  /**
   * The parcels of {@code tenant}'s rows ({@code row} his user row); each store is read under its
   * row's lock, tried.
   *
   * @throws LockOrder.RowBusy when a store's row is locked by another thread
   */
  Snapshot snapshot(Tenant tenant, UserRow row) {
    List<String> connectionIds = new ArrayList<>(new TreeSet<>(row.connections()));
    Map<String, Object> userParcel = Parcels.user(row, connectionIds, worker.stateVersion(),
        tenant.generation());
    Map<String, Map<String, Object>> connectionParcels = new LinkedHashMap<>();
    List<PageRow> allPages = new ArrayList<>();
    for (String connectionId : connectionIds) {
      ConnectionRow connection = registry.connectionItems().get(connectionId).orElse(null);
      if (connection == null) {
        continue;
      }
      List<PageRow> pages = pagesOf(connection);
      allPages.addAll(pages);
      connectionParcels.put(connectionId, Parcels.connection(connection, pages, null,
          worker.stateVersion()));
    }
    return new Snapshot(userParcel, connectionParcels, allPages);
  }

  /**
   * The disk trip of a freeze, semaphore held: snapshot, write, then empty memory and announce. An
   * expiry ordered while the parcels were written drops him instead (his pages added to
   * {@code closed}) and takes the parcels back.
   * Every row lock is tried, never waited for: a row a call's store action holds (a straggler, cut
   * by a quit) undoes what was written and throws {@link LockOrder.RowBusy}, and the trip gives the
   * semaphore and the disk thread back and tries again later, up to the grace.
   */
  private FreezeOutcome freeze(Tenant tenant, Freezer into, String cause, List<String> closed)
      throws IOException {
    String user = tenant.user;
    UserRow row = registry.userItems().get(user).orElseThrow(() -> new WorkerException(RefusalReason.USER_LEFT_MOVING, user, "'" + user + "' left worker " + name
            + " before his freeze; nothing was written"));
    Snapshot snapshot = snapshot(tenant, row);
    Tenant.WokenFrom read;
    tenant.lock.lock();
    try {
      read = tenant.wokenFrom();
    } finally {
      tenant.lock.unlock();
    }
    Map<String, Object> userParcel = snapshot.userParcel();
    Map<String, Map<String, Object>> connectionParcels = snapshot.connectionParcels();
    List<PageRow> allPages = snapshot.pages();
    List<String> pageIds = new ArrayList<>();
    allPages.forEach(page -> pageIds.add(page.pageId()));
    // a guest the idle valve froze holding nothing is marked so, from what is written itself
    String written = Departures.IDLE_CAUSE.equals(cause)
        && user.startsWith(RegisterRegistry.GUEST_PREFIX)
        && Parcels.holdNothing(userParcel, connectionParcels.values())
        ? ParcelHeader.EMPTY_GUEST_CAUSE : cause;
    try {
      into.writeUserParcel(user, userParcel, name, written, group);
      for (Map.Entry<String, Map<String, Object>> parcel : connectionParcels.entrySet()) {
        into.writeConnectionParcel(user, parcel.getKey(), parcel.getValue(), name, written, group);
      }
    } catch (IOException | RuntimeException e) {
      Throwable undone = undo(into, user, connectionParcels.keySet(), e);
      throw new WorkerException(RefusalReason.FREEZER_FAILED, user, "the freezer refused"
          + " the parcels of '" + user + "' (" + e.getMessage() + "); the departure was aborted"
          + " whole: he stays alive and active on worker " + name + ", nothing was announced and"
          + " the semaphore was given back: free space or fix the freezer, then freeze again",
          undone);
    }
    if (read != null) { // what his wake read: set aside, and connections he no longer holds
      Set<String> gone = new HashSet<>(read.connectionFiles());
      gone.removeAll(connectionParcels.keySet());
      try {
        into.dropWokenParcel(user);
        Checkpoints.dropOwnConnectionFiles(into, user, gone);
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "the parcels '" + user + "' was woken from were not dropped at his"
            + " freeze on worker " + name + "; they are residue, which no wake reads", e);
      }
    }
    PageRow busyPage = null;
    boolean expired = false;
    tenant.lock.lock();
    try {
      List<ReentrantLock> pageLocks = worker.pageLocks(allPages); // the detach seam's, tried
      ReentrantLock busy = LockOrder.tryLockAll(pageLocks);
      if (busy != null) {
        busyPage = allPages.get(pageLocks.indexOf(busy));
      } else if (tenant.expiryOrdered()) { // ordered while the parcels were written
        try {
          drops.dropAnnounced(user, closed);
        } finally {
          LockOrder.unlockAll(pageLocks);
        }
        expired = true;
        departures.count(q -> q.dropped.incrementAndGet()); // before he leaves: a quit may finish
        worker.leave(tenant, "expired");
        tenant.departed();
      } else {
        try {
          registry.dropUser(user);
        } finally {
          LockOrder.unlockAll(pageLocks);
        }
        announcer.publish(AnnouncementKind.USER_FROZEN, user, List.of(user), null);
        if (!pageIds.isEmpty()) {
          announcer.publish(AnnouncementKind.DROP_PAGES, user, pageIds, null);
        }
        departures.count(q -> q.frozen.incrementAndGet()); // before he leaves: a quit may finish
        worker.leave(tenant, "frozen", WorkerException.Where.FROZEN);
        tenant.departed();
      }
    } finally {
      tenant.lock.unlock();
    }
    if (expired) { // he is dropped: what was written for him goes, the semaphore still held
      announcer.deliver();
      Throwable undoFailure = undo(into, user, connectionParcels.keySet(), null);
      if (undoFailure != null) {
        LOG.log(Level.ERROR, "'" + user + "' expired while his freeze wrote his parcels, and they"
            + " could not be dropped from " + into.root() + "; drop his folder by hand",
            undoFailure);
      }
      return FreezeOutcome.DROPPED;
    }
    if (busyPage != null) { // nothing was dropped: take the parcels back, then try again later
      Throwable undoFailure = undo(into, user, connectionParcels.keySet(), null);
      if (undoFailure != null) {
        throw new WorkerException(RefusalReason.FREEZER_FAILED, user, "page '"
            + busyPage.pageId() + "' of '" + user + "' was busy when his freeze emptied memory,"
            + " and the parcels already written could not be taken back (" + undoFailure
            + "); he stays alive and active on worker " + name + ", nothing was announced:"
            + " drop his folder's parcels by hand before his next wake", undoFailure);
      }
      throw new LockOrder.RowBusy("the page row '" + busyPage.pageId() + "'");
    }
    announcer.deliver();
    return FreezeOutcome.FROZEN;
  }

  /** Drops the parcels a freeze wrote, semaphore held, so that nothing half-frozen stays behind. */
  private static Throwable undo(Freezer into, String user, Iterable<String> connectionIds,
      Throwable failure) {
    try {
      into.dropUserParcel(user);
      for (String connectionId : connectionIds) {
        into.dropConnectionParcel(user, connectionId);
      }
    } catch (IOException | RuntimeException dropFailure) {
      if (failure == null) {
        return dropFailure;
      }
      failure.addSuppressed(dropFailure);
    }
    return failure;
  }

  /** The pages of a connection that are still registered, in id order. */
  List<PageRow> pagesOf(ConnectionRow connection) {
    List<PageRow> pages = new ArrayList<>();
    for (String pageId : new TreeSet<>(connection.pages())) {
      registry.pageItems().get(pageId).ifPresent(pages::add);
    }
    return pages;
  }
}
