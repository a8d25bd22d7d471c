package dev.cryo.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the worker knows of one user beside his rows: the phase of his stay, his calls in flight,
 * the departure waiting for them, and his transfer flag. Every field is guarded by {@link #lock},
 * which also serialises the user's lifecycle changes and their announcements. The lock comes
 * before any row lock and is refused to a thread inside a store action ({@link LockOrder}); it is
 * never held while waiting for the disk, and the worker's own code holding it only tries row locks
 * a store action may hold, never waits for them.
 */
final class Tenant {

  enum Phase {
    /** Served. */
    ACTIVE,
    /** Being woken; calls wait for {@link #transition}. */
    UNFREEZING,
    /** Leaving (freeze, expiry or login tail in progress); calls wait for {@link #transition}. */
    LEAVING
  }

  /**
   * A departure waiting for the user's calls to end, or running: a freeze or an expiry (its result a
   * {@link FreezeOutcome}), or a login tail (a {@link LoginOutcome}).
   */
  record Departure(CompletableFuture<Object> result, Runnable start, boolean loginTail) {}

  final String user;
  final ReentrantLock lock;
  /**
   * The generation this stay of his was granted ({@link dev.cryo.wire.protocol.Grant}): the only
   * one his calls and orders are served at. Set when the tenant is made, raised only by a wake
   * granted to a tenant present without rows.
   */
  long generation;
  Phase phase = Phase.ACTIVE;
  /** False once the tenant left the worker's map: whoever holds a reference must look again. */
  boolean present = true;
  /** Why the tenant left the map, for the calls that waited on it. */
  String leftBecause;
  /** Where the tenant went when it left the map, for the calls that waited on it. */
  WorkerException.Where leftTo;
  final Set<RequestSlot> slots = new LinkedHashSet<>();
  long servedCalls;
  TransferFlag flag;
  /** Set when a quit cut his calls to start his departure: they may hold his rows forever. */
  boolean cut;
  /** Set while failed departures must not be retried by the departure loop (a quit's failures). */
  boolean departureFailed;
  /** Completes when the current UNFREEZING or LEAVING phase ends. */
  CompletableFuture<Void> transition = CompletableFuture.completedFuture(null);
  /** The departure claimed for this user, deferred until his last call closes, or running. */
  Departure departure;
  /** Connection parcels being looked for, by connection id: one disk trip per connection. */
  final Map<String, CompletableFuture<Void>> probes = new HashMap<>();

  Tenant(String user, long generation) {
    this.user = user;
    this.generation = generation;
    this.lock = new LockOrder.TenantLock(user);
  }

  /** Slots whose connection is {@code connectionId}. */
  List<RequestSlot> slotsOf(String connectionId) {
    List<RequestSlot> out = new ArrayList<>();
    for (RequestSlot slot : slots) {
      if (slot.connectionId().equals(connectionId)) {
        out.add(slot);
      }
    }
    return out;
  }
}
