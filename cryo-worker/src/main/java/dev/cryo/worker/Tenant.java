package dev.cryo.worker;

import dev.cryo.wire.protocol.Grant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One user's stay on this worker, and its only owner: the phase of the stay, the generation it was
 * granted, his calls in flight, the departure waiting for them and his transfer flag. Every change
 * of the stay is one method of this class — admit a call ({@link #fence}, {@link #open}),
 * {@link #close} it, wake ({@link #startWaking}, {@link #woken}), depart ({@link #claimDeparture},
 * {@link #freezeFailed}), hand a connection over at a login ({@link #claimLoginTail},
 * {@link #handedOver}), relabel calls ({@link #moveSlots}), flag for a plan or a quit, leave
 * ({@link #left}) — and no other class writes its fields.
 *
 * <p>Concurrency: every field is guarded by {@link #lock}, and every method but {@link #flag()} and
 * {@link #generation()} must be called holding it (a transition checks, and throws {@link IllegalStateException} when
 * not). The caller holds the lock rather than the method taking it because a transition goes
 * with the rows it concerns: the caller reads or changes the registry and the announcer under the
 * same hold. The lock comes before any row lock and is refused to a thread inside a store action
 * ({@link LockOrder}); it is never held while waiting for the disk, and the worker's own code
 * holding it only tries row locks a store action may hold, never waits for them.
 */
final class Tenant {

  enum Phase {
    /** Served. */
    ACTIVE,
    /** Being woken; calls wait for {@link #transition()}. */
    UNFREEZING,
    /** Leaving (freeze, expiry or login tail in progress); calls wait for {@link #transition()}. */
    LEAVING
  }

  /** How a call's grant fits the stay: the fence's answer ({@link #fence}). */
  enum Fence {
    /** The call is for this stay: serve it. */
    PASSED,
    /** The stay is at another generation than the grant names, and the grant cannot renew it. */
    OTHER_GENERATION,
    /** The stay has no rows left (dropped under calls in flight) and the grant creates nobody. */
    NOT_LIVE
  }

  /**
   * A departure waiting for the user's calls to end, or running: a freeze or an expiry (its result a
   * {@link FreezeOutcome}), or a login tail (a {@link LoginOutcome}).
   */
  record Departure(CompletableFuture<Object> result, Runnable start, boolean loginTail) {}

  /**
   * What a departure order found ({@link #claimDeparture}): the result to wait for (null when the
   * order must first wait for {@code waitFirst}, a wake or a login tail in progress, then be asked
   * again), and the departure to start now (null when it waits for the last call or runs already).
   */
  record Claim(CompletableFuture<Object> result, CompletableFuture<Void> waitFirst, Runnable start) {}

  final String user;
  final ReentrantLock lock;
  private volatile long generation;
  private Phase phase = Phase.ACTIVE;
  private boolean present = true;
  private String leftBecause;
  private WorkerException.Where leftTo;
  private final Set<RequestSlot> slots = new LinkedHashSet<>();
  private long servedCalls;
  private volatile TransferFlag flag;
  private boolean cut;
  private boolean departureFailed;
  private CompletableFuture<Void> transition = CompletableFuture.completedFuture(null);
  private Departure departure;
  private final Map<String, CompletableFuture<Void>> probes = new HashMap<>();
  private long checkpointedCalls = -1; // servedCalls at his last checkpoint; -1: none this stay
  private boolean checkpointing;
  private boolean checkpointWritten;
  private boolean checkpointWanted;
  private WokenFrom wokenFrom; // the parcels his wake read, kept until this stay writes his own

  /**
   * The parcels a wake read and left in the freezer: his user parcel, written at
   * {@code generation}, and the connection parcels read from their files. Kept until this stay
   * writes his own (a checkpoint, a freeze), so that his worker's death before that loses nothing
   * his wake read: the commander freezes him back at them.
   */
  record WokenFrom(long generation, Set<String> connectionFiles) {
    WokenFrom {
      connectionFiles = Set.copyOf(connectionFiles);
    }
  }

  /** A new stay of {@code user}, active, at the {@code generation} a birth or wake grant gave. */
  Tenant(String user, long generation) {
    this.user = user;
    this.generation = generation;
    this.lock = new LockOrder.TenantLock(user);
  }

  // ---- reads, under the lock --------------------------------------------------------------------

  /**
   * The generation this stay was granted ({@link Grant}): the only one his calls and orders are
   * served at. Set when the stay is made, raised only by {@link #fence} for a stay whose rows are
   * gone. May be read without the lock (the announcer reads it as it announces him, under the lock
   * of whoever announces).
   */
  long generation() {
    return generation;
  }

  Phase phase() {
    return phase;
  }

  /** False once the stay ended: whoever holds a reference must look in the worker's map again. */
  boolean present() {
    return present;
  }

  /** Why the stay ended, for the calls that waited on it. */
  String leftBecause() {
    return leftBecause;
  }

  /** Where the user went when the stay ended, for the calls that waited on it. */
  WorkerException.Where leftTo() {
    return leftTo;
  }

  /** Completes when the current UNFREEZING or LEAVING phase ends. */
  CompletableFuture<Void> transition() {
    return transition;
  }

  /** Whether a login tail is his departure (claimed or running). */
  boolean inLoginTail() {
    return departure != null && departure.loginTail();
  }

  /** His calls in flight. */
  int pending() {
    return slots.size();
  }

  /** Calls served here since the stay began. */
  long servedCalls() {
    return servedCalls;
  }

  /** His transfer flag, or null; may be read without the lock (a hint, checked again under it). */
  TransferFlag flag() {
    return flag;
  }

  /** The slots of his calls from {@code connectionId}. */
  List<RequestSlot> slotsOf(String connectionId) {
    List<RequestSlot> out = new ArrayList<>();
    for (RequestSlot slot : slots) {
      if (slot.connectionId().equals(connectionId)) {
        out.add(slot);
      }
    }
    return out;
  }

  // ---- admission --------------------------------------------------------------------------------

  /**
   * The fence: whether a call under {@code grant} is for this stay. A stay active, with no
   * departure and no rows ({@code hasRows} false: his calls outlived them) is renewed at a birth or
   * wake grant of a later generation; otherwise the grant must name this stay's generation (a stay
   * leaving is waited for first, whatever the grant), and a stay without rows serves only a grant
   * that creates.
   */
  Fence fence(Grant grant, boolean hasRows) {
    requireHeld();
    boolean rowless = rowless(hasRows);
    if (phase != Phase.LEAVING && generation != grant.generation()) {
      if (!(rowless && grant.creates() && grant.generation() > generation)) {
        return Fence.OTHER_GENERATION;
      }
      generation = grant.generation(); // his calls outlived his rows: a new stay
      return Fence.PASSED;
    }
    return rowless && !grant.creates() ? Fence.NOT_LIVE : Fence.PASSED;
  }

  /** Whether the stay is active, with no departure claimed, and without rows. */
  boolean rowless(boolean hasRows) {
    requireHeld();
    return phase == Phase.ACTIVE && departure == null && !hasRows;
  }

  /**
   * Whether a login may relabel into this stay, located at {@code located}: it is this stay's
   * generation, or the stay ended (the caller looks again).
   */
  boolean locatedAt(long located) {
    requireHeld();
    return !present || generation == located;
  }

  /** Opens a call's slot: the stay will not depart before it closes (or a quit cuts it). */
  void open(RequestSlot slot) {
    requireHeld();
    slots.add(slot);
  }

  /** What closing a slot left ({@link #close}). */
  enum Closed {
    /** The slot was not open (closed already, or cut by a quit). */
    NOT_OPEN,
    /** Other calls are still in flight, or the stay is not active. */
    BUSY,
    /** It was the last call: the departure that waited for it is LEAVING now, to be started. */
    DEPARTING,
    /** It was the last call, and no departure waits. */
    IDLE
  }

  /**
   * Closes a call's slot, counted as served. When it was the last and a departure waited for it,
   * the stay is LEAVING and {@link #startClaimed()} gives the departure to run.
   */
  Closed close(RequestSlot slot) {
    requireHeld();
    if (!slots.remove(slot)) {
      return Closed.NOT_OPEN;
    }
    servedCalls++;
    if (!slots.isEmpty() || phase != Phase.ACTIVE) {
      return Closed.BUSY;
    }
    if (departure != null) {
      phase = Phase.LEAVING;
      transition = new CompletableFuture<>();
      return Closed.DEPARTING;
    }
    return Closed.IDLE;
  }

  /** The claimed departure's start, once {@link #close} made the stay LEAVING. */
  Runnable startClaimed() {
    requireHeld();
    return departure.start();
  }

  /**
   * Moves the slots of connection {@code connectionId}'s calls to {@code to}, served from now on as
   * {@code user} (a login relabelled the connection); the caller holds both stays' locks. When that
   * took this stay's last call and a departure waited for it, the stay is LEAVING now and the
   * departure's start is returned, for the caller to run once it let go of every lock (no call of
   * his is left to close and start it); else null.
   */
  Runnable moveSlots(String connectionId, Tenant to, String user) {
    requireHeld();
    to.requireHeld();
    List<RequestSlot> moved = slotsOf(connectionId);
    for (RequestSlot slot : moved) {
      slots.remove(slot);
      to.slots.add(slot);
      slot.tenant = to;
      slot.user = user;
    }
    return !moved.isEmpty() && departureDeferred() && slots.isEmpty() ? cutAndLeave() : null;
  }

  // ---- checkpoints -------------------------------------------------------------------------------

  /**
   * Whether a checkpoint of this stay is due ({@link Checkpoints}): he is here and active, no
   * departure claimed, none is on its way, and he was served a call since the last (or none was
   * taken this stay). It is taken when {@link #checkpointDueNow} too.
   */
  boolean checkpointDue() {
    requireHeld();
    return present && phase == Phase.ACTIVE && departure == null && !checkpointing
        && servedCalls != checkpointedCalls;
  }

  /**
   * Whether a checkpoint may be taken now, its trip under way: he is here and active, with no
   * call in flight and no departure claimed.
   */
  boolean checkpointDueNow() {
    requireHeld();
    return present && phase == Phase.ACTIVE && slots.isEmpty() && departure == null;
  }

  /**
   * Whether a checkpoint could be taken for a durable call ({@link Checkpoints#durable}), served
   * calls or not: he is here and active, no departure claimed, none on its way.
   */
  boolean checkpointPossible() {
    requireHeld();
    return present && phase == Phase.ACTIVE && departure == null && !checkpointing;
  }

  /** A checkpoint is due while calls are in flight: it is taken as the last closes. */
  void checkpointWanted() {
    requireHeld();
    checkpointWanted = true;
  }

  /** Whether a checkpoint was wanted since the last call closed; clears it. */
  boolean takeCheckpointWanted() {
    requireHeld();
    boolean was = checkpointWanted;
    checkpointWanted = false;
    return was;
  }

  /** A checkpoint's trip is on its way. */
  void checkpointStarted() {
    requireHeld();
    checkpointing = true;
  }

  /**
   * The checkpoint on its way ended: taken at {@code calls} served ({@code written} when a parcel
   * was written), or not taken (-1: he was busy; due again).
   */
  void checkpointEnded(long calls, boolean written) {
    requireHeld();
    checkpointing = false;
    if (calls >= 0) {
      checkpointedCalls = calls;
    }
    checkpointWritten |= written;
  }

  /** Whether this stay wrote a checkpoint parcel, which a departure not by the freezer leaves. */
  boolean checkpointWritten() {
    requireHeld();
    return checkpointWritten;
  }

  /**
   * Whether a parcel of his is in the freezer that a departure not by the freezer must leave: a
   * checkpoint of this stay, or what his wake read ({@link #wokenFrom()}).
   */
  boolean parcelsInFreezer() {
    requireHeld();
    return checkpointWritten || wokenFrom != null;
  }

  /** The parcels his wake read and left, until this stay writes his own; null otherwise. */
  WokenFrom wokenFrom() {
    requireHeld();
    return wokenFrom;
  }

  /** This stay wrote his own parcels over what his wake read ({@link #wokenFrom()}). */
  void wokenFromReplaced() {
    requireHeld();
    wokenFrom = null;
  }

  // ---- waking ------------------------------------------------------------------------------------

  /** ACTIVE to UNFREEZING: calls wait for the wake; the caller made his placeholder row. */
  void startWaking() {
    requireHeld();
    phase = Phase.UNFREEZING;
    transition = new CompletableFuture<>();
  }

  /**
   * UNFREEZING to ACTIVE: his rows are rebuilt and announced; {@code from}, the parcels the wake
   * read and left in the freezer (null: none left).
   */
  void woken(WokenFrom from) {
    requireHeld();
    phase = Phase.ACTIVE;
    wokenFrom = from;
  }

  /**
   * A connection parcel to adopt: the probe already looking for it, or null when the caller is
   * now the one to look ({@code mine}, registered until {@link #probed}).
   */
  CompletableFuture<Void> probe(String connectionId, CompletableFuture<Void> mine) {
    requireHeld();
    return probes.putIfAbsent(connectionId, mine);
  }

  /** The look for connection {@code connectionId}'s parcel ended. */
  void probed(String connectionId) {
    requireHeld();
    probes.remove(connectionId);
  }

  // ---- departures -------------------------------------------------------------------------------

  /**
   * Claims a departure ordered for this stay; null when there is nothing to depart (the stay ended,
   * is at another generation than {@code fence} when it is 0 or more, or has no rows). A departure
   * claimed already is joined; one claimed now is made by {@code runner} from its result. A login
   * tail or a wake in progress is waited for first ({@link Claim#waitFirst}). The departure starts
   * once the last call closed, or at once when {@code force} (a quit's cut: the calls in flight are
   * cut, and a login tail's are too).
   */
  Claim claimDeparture(long fence, boolean force, boolean hasRows,
      Function<CompletableFuture<Object>, Runnable> runner) {
    requireHeld();
    if (!present || (fence >= 0 && generation != fence)) {
      return null;
    }
    if (departure != null) {
      Runnable start = force && phase == Phase.ACTIVE ? cutAndLeave() : null;
      return departure.loginTail()
          ? new Claim(null, departure.result().thenApply(outcome -> null), start)
          : new Claim(departure.result(), null, start);
    }
    if (phase == Phase.UNFREEZING) {
      return new Claim(null, transition, null);
    }
    if (!hasRows) {
      return null;
    }
    CompletableFuture<Object> result = new CompletableFuture<>();
    departure = new Departure(result, runner.apply(result), false);
    return new Claim(result, null, slots.isEmpty() || force ? cutAndLeave() : null);
  }

  /**
   * Claims a login tail: the connection handed over to another identity, as this stay's departure.
   * False when the stay is already leaving, being woken or gone. It starts once the last call
   * closed: the start is returned when that is now, else null.
   */
  boolean claimLoginTail(CompletableFuture<Object> result, Runnable run) {
    requireHeld();
    if (!present || departure != null || phase != Phase.ACTIVE) {
      return false;
    }
    departure = new Departure(result, run, true);
    return true;
  }

  /** The claimed departure's start when no call is in flight (made LEAVING), else null. */
  Runnable startIfIdle() {
    requireHeld();
    return slots.isEmpty() ? cutAndLeave() : null;
  }

  /** LEAVING now: the calls still in flight are cut (remembered for the departure). */
  private Runnable cutAndLeave() {
    cut = !slots.isEmpty();
    slots.clear();
    phase = Phase.LEAVING;
    transition = new CompletableFuture<>();
    return departure.start();
  }

  /** Whether the departure starting now cut calls in flight; read once, then forgotten. */
  boolean takeCut() {
    requireHeld();
    boolean was = cut;
    cut = false;
    return was;
  }

  /** Whether an expiry was ordered for him ({@link TransferFlag#EXPIRY}): it wins over a freeze. */
  boolean expiryOrdered() {
    requireHeld();
    return flag == TransferFlag.EXPIRY;
  }

  /**
   * A freeze the disk refused: active again, as he was. An expiry order is not consumed (it runs
   * next); any other flag is, by a counted failure, and no departure loop retries him this round.
   */
  void freezeFailed() {
    requireHeld();
    phase = Phase.ACTIVE;
    departure = null;
    if (flag == TransferFlag.EXPIRY) {
      departureFailed = false;
    } else {
      flag = null;
      departureFailed = true;
    }
    transition.complete(null);
  }

  /** An expiry given up (a row stayed busy): active again; the flag stays, riding the photo. */
  void expiryFailed() {
    requireHeld();
    phase = Phase.ACTIVE;
    departure = null;
    departureFailed = true;
    transition.complete(null);
  }

  /** A login tail that failed: the connection stays here as it was. */
  void tailFailed() {
    requireHeld();
    if (present) {
      phase = Phase.ACTIVE;
      departure = null;
    }
    transition.complete(null);
  }

  /**
   * A login tail handed the connection over; the stay goes on ({@code staying}) or the caller
   * ended it ({@link #left}) because it was the user's last connection.
   */
  void handedOver(boolean staying) {
    requireHeld();
    departure = null;
    if (staying) {
      phase = Phase.ACTIVE;
    }
    transition.complete(null);
  }

  /** The departure ended with the stay ({@link #left} first): calls waiting look again. */
  void departed() {
    requireHeld();
    transition.complete(null);
  }

  /** A wake that failed: calls waiting get {@code cause}; the caller ended the stay first. */
  void wakeFailed(Throwable cause) {
    requireHeld();
    transition.completeExceptionally(cause);
  }

  /** The wake in progress ended, announced and delivered: calls waiting go on. */
  void wakeSettled() {
    transition.complete(null); // completing a future is thread-safe; waiters take the lock
  }

  /**
   * Ends the stay: out of the worker's map for good ({@code because}, gone {@code where}); his
   * departure, flag and slots are forgotten. The caller takes him out of the map.
   */
  void left(String because, WorkerException.Where where) {
    requireHeld();
    present = false;
    leftBecause = because;
    leftTo = where;
    departure = null;
    flag = null;
    slots.clear();
  }

  // ---- plans and quits ----------------------------------------------------------------------------

  /** Flags him for a plan's departure, to be tried again even if one failed this round. */
  void plan(TransferFlag planned) {
    requireHeld();
    if (present) {
      flag = planned;
      departureFailed = false;
    }
  }

  /** A quit began: he is to transfer, unless an expiry was ordered; tried again this round. */
  void quitting() {
    requireHeld();
    if (present) {
      if (flag != TransferFlag.EXPIRY) {
        flag = TransferFlag.TRANSFER;
      }
      departureFailed = false;
    }
  }

  /** During a quit, a stay made or found active transfers too (the plan of a quit is terminal). */
  void transferIfUnflagged() {
    requireHeld();
    if (flag == null) {
      flag = TransferFlag.TRANSFER;
    }
  }

  /** A guest relabelled into an identity: his flag goes with him (a real owner keeps his). */
  void dropFlag() {
    requireHeld();
    flag = null;
  }

  /**
   * Whether the departure loop may send him now: flagged, active, nothing claimed, not failed this
   * round, with rows. A flag on a stay without rows and calls is consumed by his absence.
   */
  boolean canLeave(boolean hasRows) {
    requireHeld();
    if (!present || flag == null || departure != null || phase != Phase.ACTIVE || departureFailed) {
      return false;
    }
    if (!hasRows) {
      if (slots.isEmpty()) {
        flag = null;
      }
      return false;
    }
    return true;
  }

  /** Whether he keeps a quit from ending: here, not failed this round, not a shell. */
  boolean holdsQuit(boolean hasRows) {
    requireHeld();
    boolean shell = slots.isEmpty() && phase == Phase.ACTIVE && !hasRows;
    return present && !departureFailed && !shell;
  }

  /** Whether a departure is claimed and waits for his calls to end: active, here. */
  boolean departureDeferred() {
    requireHeld();
    return present && phase == Phase.ACTIVE && departure != null;
  }

  /** Whether a quit's grace ran out on his calls: a departure deferred, calls in flight. */
  boolean straggling() {
    return departureDeferred() && !slots.isEmpty();
  }

  private void requireHeld() {
    if (!lock.isHeldByCurrentThread()) {
      throw new IllegalStateException("the stay of '" + user + "' is changed only under its lock");
    }
  }
}
