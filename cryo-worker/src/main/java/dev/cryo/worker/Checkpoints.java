package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checkpoints: the state of each awake user who was served a call since his last is written
 * behind to the freezer every period, while he stays in memory, so that a worker killed with him
 * loses at most that period of his writes (the commander buries the worker and freezes him at his
 * checkpoint, {@code Supervisor}).
 *
 * <p>A checkpoint is one user parcel, written whole or not at all (a killed write leaves the one
 * before), of cause {@link ParcelHeader#CHECKPOINT_CAUSE}, at his stay's generation, with his
 * connection parcels inside it ({@link dev.cryo.freezer.ParcelTree#CONNECTION_PARCELS}): a wake
 * reads them from there. Its snapshot is made under his tenant lock while no call of his is in
 * flight, so it holds whole calls only: at the walk, or, for a user busy then, as his last call in
 * flight closes. It is written on the disk executor holding his semaphore, and only if he holds
 * the same connections as the snapshot and is not leaving (calls served since leave him due for
 * the next); a freeze overwrites it (the semaphore
 * orders them); a stay that ends without the freezer (a login into another
 * identity, an expiry, a drop) drops it ({@link #left}). A guest who never held anything is not
 * written. Nothing is taken once a quit began: the quit freezes everybody.
 *
 * <p><b>Durable calls.</b> The reply of a durable route ({@code Routes.durable}) waits for
 * {@link #durable}: a checkpoint of the user taken after the call closed, written and forced to
 * disk with its group ({@link GroupCommit}) on a trip of its own ({@code durableTrips}, never the
 * disk threads). It is taken at once when he has no other call in flight, else as his last
 * closes, else after the one on its way ends; a stay that ends first settles it by how it ended
 * ({@link #departed}): frozen, his folder is forced; gone another way, the call is not known to be
 * on disk. A write or a force that fails fails the waiting calls with it (the next checkpoint tries
 * again). With the periodic walk off ({@code period} null) durable calls are still checkpointed.
 *
 * <p>Thread-safe: the period's walk runs on the worker's schedule, a wanted snapshot on the thread
 * closing the call; each write on the disk executor, at most {@link #IN_FLIGHT} started by a walk
 * at once, the walk going on as they end (one round visits every tenant once, whatever their
 * number). The waiting durable calls of a tenant are read and changed under his lock only.
 */
final class Checkpoints {

  // the worker's own logger, so the log lines keep their origin
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  /** The most checkpoints on their way to the disk at once: departures share its threads. */
  static final int IN_FLIGHT = 16;

  private final String name;
  private final String group;
  private final Freezer freezer;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Freezing freezing;
  private final SemaphoreTrips trips;
  private final SemaphoreTrips durableTrips;
  private final GroupCommit commit;
  private final Departures departures;
  private final Schedule schedule;
  private final Duration period;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicBoolean stalled = new AtomicBoolean(); // a round waits for a write to end
  private ArrayDeque<Tenant> round; // guarded by this: the tenants the round has yet to visit
  /** The durable calls waiting, per tenant; each list under its tenant's lock. */
  private final ConcurrentHashMap<Tenant, List<Waiter>> waiting = new ConcurrentHashMap<>();

  /** A durable call waiting for a forced checkpoint holding its user's first {@code calls}. */
  private record Waiter(long calls, CompletableFuture<Void> forced) {}

  /**
   * @param durableTrips the trips of durable checkpoints, on threads that may wait for a group's
   *     force
   * @param period how often the walk runs; null: no walk, durable calls only
   */
  Checkpoints(String name, String group, Freezer freezer,
      ConcurrentHashMap<String, Tenant> tenants, RegisterRegistry registry, Freezing freezing,
      SemaphoreTrips trips, SemaphoreTrips durableTrips, Departures departures, Schedule schedule,
      Duration period) {
    this.name = name;
    this.group = group;
    this.freezer = freezer;
    this.tenants = tenants;
    this.registry = registry;
    this.freezing = freezing;
    this.trips = trips;
    this.durableTrips = durableTrips;
    this.commit = new GroupCommit(freezer);
    this.departures = departures;
    this.schedule = schedule;
    this.period = period;
  }

  /** Starts the walks, one a period, until a quit begins; none when the period is off. */
  void start() {
    if (period != null) {
      schedule.schedule(period, this::walk);
    }
  }

  /** The group commit of durable checkpoints, for its counts. */
  GroupCommit commit() {
    return commit;
  }

  /** How many checkpoints were written since the worker started. */
  long written() {
    return written.get();
  }

  private void walk() {
    try {
      visit(true);
    } finally {
      schedule.schedule(period, this::walk);
    }
  }

  /**
   * Visits the tenants of the round in the map's order, taking the checkpoint of each who is due,
   * while fewer than {@link #IN_FLIGHT} are on their way to the disk. At that bound it stops and
   * the next write to end resumes it where it stopped ({@link #ended}): every tenant is visited
   * once a round, as fast as the disk takes them, so a user later in the order is never left to
   * wait behind a busy few. A round begins at a period's walk ({@code atPeriod}) when none is under
   * way; a resumption with no round does nothing.
   */
  private synchronized void visit(boolean atPeriod) {
    try {
      if (departures.quitting()) {
        round = null;
        return;
      }
      if (round == null) {
        if (!atPeriod) {
          return;
        }
        round = new ArrayDeque<>(tenants.values());
      }
      while (!round.isEmpty()) {
        if (inFlight.get() >= IN_FLIGHT) {
          stalled.set(true); // the next write to end resumes the round
          if (inFlight.get() >= IN_FLIGHT) {
            return;
          }
          stalled.set(false); // all ended meanwhile: go on
        }
        Tenant tenant = round.poll();
        tenant.lock.lock();
        try {
          if (tenant.checkpointDue()) {
            if (tenant.checkpointDueNow()) {
              takeLocked(tenant);
            } else {
              tenant.checkpointWanted(); // busy: taken as his last call in flight closes
            }
          }
        } finally {
          tenant.lock.unlock();
        }
      }
      round = null;
    } catch (RuntimeException e) { // never the end of the walks
      round = null;
      LOG.log(Level.WARNING, "a walk of the checkpoints on worker " + name + " failed; the next"
          + " runs in " + period, e);
    }
  }

  /**
   * A call of {@code tenant} closed, leaving none in flight; under his lock. A checkpoint the walk
   * wanted and could not take (he was busy) is taken now, from his rows as the call left them.
   */
  void closedIdle(Tenant tenant) {
    boolean wanted = tenant.takeCheckpointWanted() && tenant.checkpointDue();
    if ((wanted || waits(tenant) && tenant.checkpointPossible()) && tenant.checkpointDueNow()
        && !departures.quitting()) {
      takeLocked(tenant);
    }
  }

  /**
   * A durable call of {@code tenant} closed: the future completes once a checkpoint holding it
   * (and every call of his closed before it) is forced to disk, or fails when that cannot be
   * known (the write or the force failed, or his stay ended other than by the freezer). Called
   * after the call's slot closed, holding no lock.
   */
  CompletableFuture<Void> durable(Tenant tenant) {
    CompletableFuture<Void> forced = new CompletableFuture<>();
    tenant.lock.lock();
    try {
      Waiter waiter = new Waiter(tenant.servedCalls(), forced);
      if (!tenant.present()) {
        settleLeft(tenant, List.of(waiter), tenant.leftTo());
        return forced;
      }
      waiting.computeIfAbsent(tenant, t -> new ArrayList<>(2)).add(waiter);
      checkpointForWaiters(tenant);
    } finally {
      tenant.lock.unlock();
    }
    return forced;
  }

  /** How many durable calls wait for a forced checkpoint, all users together. */
  int waitingCalls() {
    return waiting.values().stream().mapToInt(List::size).sum();
  }

  /** Whether durable calls of {@code tenant} wait; under his lock. */
  private boolean waits(Tenant tenant) {
    List<Waiter> waiters = waiting.get(tenant);
    return waiters != null && !waiters.isEmpty();
  }

  /**
   * Under his lock, durable calls waiting: a checkpoint now when he can be taken; with calls in
   * flight, as the last closes ({@link #closedIdle}); with one on its way, after it
   * ({@link #ended}); leaving or quitting, his departure settles them ({@link #departed}).
   */
  private void checkpointForWaiters(Tenant tenant) {
    if (departures.quitting() || !tenant.checkpointPossible()) {
      return;
    }
    if (tenant.checkpointDueNow()) {
      takeLocked(tenant);
    } else {
      tenant.checkpointWanted();
    }
  }

  /**
   * The stay of {@code tenant} ended ({@code where} he went); under his lock. His waiting durable
   * calls are settled: frozen, his folder (the freeze's parcels, which hold their writes) is
   * forced with its group; gone elsewhere (a login into another identity, a drop), their writes
   * are not his to keep here, and they fail.
   */
  void departed(Tenant tenant, WorkerException.Where where) {
    List<Waiter> waiters = waiting.remove(tenant);
    if (waiters != null && !waiters.isEmpty()) {
      settleLeft(tenant, waiters, where);
    }
  }

  /**
   * A login relabelled the last connection of {@code from} into {@code to} here, and {@code from}
   * leaves: what his durable calls waiting wrote (that connection, its pages) lives in {@code to}
   * now, so they wait for a forced checkpoint of {@code to} instead. A checkpoint of {@code to}
   * snapshot before the relabel is refused as stale (his connections changed), never taken for
   * one holding them. Under both tenants' locks.
   */
  void follow(Tenant from, Tenant to) {
    List<Waiter> waiters = waiting.remove(from);
    if (waiters == null || waiters.isEmpty()) {
      return;
    }
    List<Waiter> moved = waiting.computeIfAbsent(to, t -> new ArrayList<>(2));
    waiters.forEach(waiter -> moved.add(new Waiter(to.servedCalls(), waiter.forced())));
    checkpointForWaiters(to);
  }

  /**
   * A login tail wrote the last connection of {@code from} into the folder of {@code user}, and
   * {@code from} leaves: his durable calls waiting are taken from him, to be settled by the force
   * of that folder ({@link #settleByForce}). Under his lock.
   */
  List<CompletableFuture<Void>> takeWaiters(Tenant from) {
    List<Waiter> waiters = waiting.remove(from);
    return waiters == null ? List.of()
        : waiters.stream().map(Waiter::forced).toList();
  }

  /**
   * Forces the folder of {@code user}, whose semaphore the caller holds, and settles
   * {@code waiters} by it: forced, they are durable; a failed force fails them. No lock held.
   */
  void settleByForce(String user, List<CompletableFuture<Void>> waiters) {
    if (waiters.isEmpty()) {
      return;
    }
    try {
      commit.force(user);
      waiters.forEach(forced -> forced.complete(null));
    } catch (IOException | RuntimeException e) {
      waiters.forEach(forced -> forced.completeExceptionally(e));
    }
  }

  private void settleLeft(Tenant tenant, List<Waiter> waiters, WorkerException.Where where) {
    if (where != WorkerException.Where.FROZEN) {
      fail(waiters, new IOException("'" + tenant.user + "' left worker " + name + " ("
          + where + ") before a checkpoint held the call; what it wrote went with him"));
      return;
    }
    durableTrips.run(() -> freezer, tenant.user, "durable force", into -> {
      commit.force(tenant.user);
      return null;
    }).whenComplete((ignored, failure) -> {
      if (failure == null) {
        waiters.forEach(waiter -> waiter.forced().complete(null));
      } else {
        fail(waiters, Worker.unwrap(failure));
      }
    });
  }

  private static void fail(List<Waiter> waiters, Throwable why) {
    waiters.forEach(waiter -> waiter.forced().completeExceptionally(why));
  }

  /**
   * A checkpoint of {@code tenant} ended; under his lock. Forced at {@code calls}, it settles the
   * durable calls it holds; failed, it fails them all; the ones left get the next checkpoint.
   */
  private void settle(Tenant tenant, Taken taken, Throwable failure) {
    List<Waiter> waiters = waiting.get(tenant);
    if (waiters == null || waiters.isEmpty()) {
      return;
    }
    if (failure != null) {
      fail(waiters, Worker.unwrap(failure));
      waiters.clear();
    } else if (taken.forced()) {
      waiters.removeIf(waiter -> waiter.calls() <= taken.calls()
          && waiter.forced().complete(null));
    }
    if (waiters.isEmpty()) {
      waiting.remove(tenant, waiters);
    } else {
      checkpointForWaiters(tenant);
    }
  }

  /**
   * Snapshots {@code tenant} now, under his lock, and sends the write on its trip: no call of his
   * is in flight, so the snapshot holds whole calls. A row a store action holds (none should,
   * with no call in flight) leaves him due.
   */
  private void takeLocked(Tenant tenant) {
    Optional<UserRow> row = registry.userItems().get(tenant.user);
    if (row.isEmpty()) {
      return;
    }
    Freezing.Snapshot snapshot;
    try {
      snapshot = freezing.snapshot(tenant, row.get());
    } catch (LockOrder.RowBusy busy) {
      return;
    }
    long calls = tenant.servedCalls();
    if (!tenant.parcelsInFreezer() && Parcels.holdNothing(snapshot.userParcel(),
        snapshot.connectionParcels().values())) {
      tenant.checkpointEnded(calls, false); // a guest who holds nothing loses nothing
      settle(tenant, new Taken(calls, false, true), null); // nor does a durable call of his
      return;
    }
    boolean durable = waits(tenant);
    tenant.checkpointStarted();
    if (durable) {
      durableTrips.run(() -> freezer, tenant.user, "durable checkpoint", into -> write(tenant,
          snapshot, calls, into, true)).whenComplete((taken, failure) -> ended(tenant, taken,
          failure, false));
      return;
    }
    inFlight.incrementAndGet();
    trips.run(() -> freezer, tenant.user, "checkpoint", into -> write(tenant, snapshot, calls,
        into, false)).whenComplete((taken, failure) -> ended(tenant, taken, failure, true));
  }

  /**
   * What a checkpoint's trip did: taken at {@code calls} served, written or not, forced to disk
   * (or holding nothing to force) or not.
   */
  private record Taken(long calls, boolean written, boolean forced) {
    static final Taken STALE = new Taken(-1, false, false);
  }

  private void ended(Tenant tenant, Taken taken, Throwable failure, boolean ofWalk) {
    if (ofWalk) {
      inFlight.decrementAndGet();
    }
    tenant.lock.lock();
    try {
      tenant.checkpointEnded(failure == null ? taken.calls() : -1,
          failure == null && taken.written());
      settle(tenant, taken, failure);
    } finally {
      tenant.lock.unlock();
    }
    if (failure != null && failed.getAndIncrement() % 1000 == 0) { // once in a while, not a flood
      LOG.log(Level.WARNING, "a checkpoint of '" + tenant.user + "' on worker " + name + " was"
          + " not written; he stays awake and is tried again next period (" + failed.get()
          + " failures so far)", Worker.unwrap(failure));
    }
    if (ofWalk && stalled.compareAndSet(true, false)) {
      try {
        schedule.schedule(Duration.ZERO, () -> visit(false)); // the round goes on
      } catch (RejectedExecutionException finished) {
        // the worker finished: no more rounds
      }
    }
  }

  /**
   * The trip, semaphore held: the snapshot taken at {@code calls} served is written only if he is
   * still here, active, and holds the same connections (calls served since do not stop it: a user
   * clicking faster than the disk would never be written). A departure claimed meanwhile writes
   * after this (it needs the semaphore), so a checkpoint never lands over a newer freeze; one
   * checkpoint of his is on its way at a time, so an older one never lands over a newer one.
   */
  private Taken write(Tenant tenant, Freezing.Snapshot snapshot, long calls, Freezer into,
      boolean force) throws IOException {
    Tenant.WokenFrom read;
    tenant.lock.lock();
    try {
      if (!tenant.present() || tenant.phase() != Tenant.Phase.ACTIVE
          || !sameConnections(tenant, snapshot) || departures.quitting()) {
        return Taken.STALE; // due again
      }
      read = tenant.wokenFrom();
    } finally {
      tenant.lock.unlock();
    }
    Map<String, Object> parcel = new LinkedHashMap<>(snapshot.userParcel());
    parcel.put(Parcels.CONNECTION_PARCELS, snapshot.connectionParcels());
    into.writeUserParcel(tenant.user, parcel, name, ParcelHeader.CHECKPOINT_CAUSE, group);
    written.incrementAndGet();
    if (force) {
      commit.force(tenant.user); // the semaphore held: nothing replaces it meanwhile
    }
    if (read != null) { // the checkpoint holds him: what his wake read is not his state now
      into.dropWokenParcel(tenant.user);
      dropOwnConnectionFiles(into, tenant.user, read.connectionFiles());
    }
    tenant.lock.lock();
    try {
      if (read != null) {
        tenant.wokenFromReplaced();
      }
      if (tenant.present()) {
        return new Taken(calls, true, force);
      }
    } finally {
      tenant.lock.unlock();
    }
    dropIfOfStay(into, tenant.user, tenant.generation()); // he left while it was written
    return new Taken(calls, false, false);
  }

  /**
   * Whether {@code tenant} holds the connections his snapshot holds: calls served since it leave
   * it a whole earlier state of his, worth writing (he stays due, for the next), but a connection
   * a login took away or brought in since would come back with the wrong owner from it. Under his
   * lock.
   */
  private boolean sameConnections(Tenant tenant, Freezing.Snapshot snapshot) {
    return registry.userItems().get(tenant.user)
        .map(row -> row.connections().equals(snapshot.connectionParcels().keySet()))
        .orElse(false);
  }

  /**
   * The stay of {@code tenant}, which left parcels of his in the freezer (a checkpoint, or what his
   * wake read), ended without the freezer: they are no state of his any more (his state went with
   * a login, or was dropped), so they are dropped, unless a parcel of another stay replaced them
   * meanwhile. Called under his tenant lock; the drop runs on the disk executor.
   */
  void left(Tenant tenant) {
    long generation = tenant.generation();
    Tenant.WokenFrom read = tenant.wokenFrom();
    trips.run(() -> freezer, tenant.user, "checkpoint drop", into -> {
      dropIfOfStay(into, tenant.user, generation);
      if (read != null && dropWokenIfOfGeneration(into, tenant.user, read.generation())) {
        dropOwnConnectionFiles(into, tenant.user, read.connectionFiles());
      }
      return null;
    }).whenComplete((ignored, failure) -> {
      if (failure != null) {
        LOG.log(Level.WARNING, "the parcels of '" + tenant.user + "', who left worker " + name
            + " without the freezer, were not dropped; they are residue, which the generation"
            + " fence keeps from being woken", Worker.unwrap(failure));
      }
    });
  }

  private static void dropIfOfStay(Freezer into, String user, long generation)
      throws IOException {
    Optional<ParcelHeader> header = into.userParcelHeader(user);
    if (header.isEmpty() || !ParcelHeader.CHECKPOINT_CAUSE.equals(header.get().cause())) {
      return;
    }
    Optional<Object> parcel = into.readUserParcel(user);
    if (parcel.isPresent() && parcel.get() instanceof Map<?, ?> map
        && Parcels.generationOf(map) == generation) {
      into.dropUserParcel(user);
    }
  }

  /** Drops the woken parcel of {@code user} if it is of {@code generation}; whether it was. */
  private static boolean dropWokenIfOfGeneration(Freezer into, String user, long generation)
      throws IOException {
    Optional<Object> parcel = into.readWokenParcel(user);
    if (parcel.isPresent() && parcel.get() instanceof Map<?, ?> map
        && Parcels.generationOf(map) == generation) {
      into.dropWokenParcel(user);
      return true;
    }
    return false;
  }

  /**
   * Drops the connection parcels {@code connectionIds} of {@code user}'s folder that a stay of his
   * wrote (a freeze's), never one a login tail handed over to him meanwhile; semaphore held.
   */
  static void dropOwnConnectionFiles(Freezer into, String user, Iterable<String> connectionIds)
      throws IOException {
    for (String connectionId : connectionIds) {
      Optional<Object> parcel = into.readConnectionParcel(user, connectionId);
      if (parcel.isPresent() && !(parcel.get() instanceof Map<?, ?> map
          && Parcels.handedOver(map))) {
        into.dropConnectionParcel(user, connectionId);
      }
    }
  }
}
