package dev.cryo.wire;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The clock of every wire: one daemon platform thread that ticks every {@link #TICK_NANOS} while
 * a wire is open and asks each open wire to expire its overdue calls, and to give a read turn left
 * free back to its reader thread ({@link ReadTurn}). A call therefore times out at most one tick
 * after its deadline. While some wire's turn goes free between ticks (callers read their own
 * replies) and that wire's peer makes calls, the clock ticks every {@link #FAST_TICK_NANOS}, so
 * that a frame arriving while nobody reads waits a millisecond or two, not ten; a free turn whose
 * peer makes no calls is taken back at the slow ticks ({@link ReadTurn#IDLE_PEER_RECLAIM_NANOS}).
 *
 * <p>Why a tick and not one scheduled task per call: scheduling a task that becomes the earliest
 * of a delay queue wakes the timer thread, once per call on a wire with one call in flight, and
 * that wake-up is a measurable part of a round trip on a small machine (docs/benchmarks.md). A
 * tick costs nothing per call.
 */
final class Timeouts {

  /** 10 ms: the precision of a call's timeout. */
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** 1 ms: the tick while a wire's read turn goes free. */
  static final long FAST_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** Whether the clock ticks fast (some turn went free at the last tick). */
  private static volatile boolean fast;

  private static final Set<Wire> WIRES = ConcurrentHashMap.newKeySet();
  private static final Thread TICKER = Thread.ofPlatform().name("cryo-wire-timeouts")
      .daemon(true).start(Timeouts::tick);

  private Timeouts() {
  }

  /** A wire that opened: its calls are watched until {@link #forget}. */
  static void watch(Wire wire) {
    WIRES.add(wire);
    LockSupport.unpark(TICKER);
  }

  /** A read turn went free: the clock ticks fast from now (one wake-up, only when it was slow). */
  static void hurry() {
    if (!fast) {
      fast = true;
      LockSupport.unpark(TICKER);
    }
  }

  /** A wire that closed. */
  static void forget(Wire wire) {
    WIRES.remove(wire);
  }

  private static void tick() {
    while (true) {
      if (WIRES.isEmpty()) {
        LockSupport.park(Timeouts.class);
      } else {
        LockSupport.parkNanos(Timeouts.class, fast ? FAST_TICK_NANOS : TICK_NANOS);
      }
      long now = System.nanoTime();
      boolean anyFree = false;
      for (Wire wire : WIRES) {
        try {
          anyFree |= wire.tick(now);
        } catch (RuntimeException | Error e) {
          System.getLogger(Timeouts.class.getName()).log(System.Logger.Level.ERROR,
              "expiring the calls of " + wire + " failed", e);
        }
      }
      fast = anyFree;
    }
  }
}
