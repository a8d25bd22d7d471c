package dev.cryo.wire;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The right to read one wire, held by one thread at a time: the wire's reader thread, or a caller
 * waiting for its reply, which then reads the wire itself (leader/follower). Whoever holds the
 * turn reads and handles every frame in arrival order, so the order of a wire's frames (an event
 * before the reply that follows it) is the same whichever thread reads.
 *
 * <p>How the turn passes:
 *
 * <ul>
 *   <li>Only while at most {@link #SOLO_CALLS} call of this side is in flight: with more, the turn
 *       goes to the reader thread, which reads for every caller (each woken by its reply), as a
 *       wire with one reader thread does.
 *   <li>A caller waiting for its reply takes a free turn and reads until its reply is in; when the
 *       turn is held, it waits as a follower, and the holder hands it the turn when done.
 *   <li>A leader that is done hands the turn to the first follower whose reply has not come yet;
 *       with none, to the reader thread when bytes of a frame are buffered or calls are pending
 *       that nobody waits for (a future used through dependent stages only); otherwise it leaves
 *       the turn free, so that the next caller reads its own reply without waking any thread.
 *   <li>A turn left free for at least {@link #RECLAIM_NANOS} goes back to the reader thread at the
 *       next tick of the wire's clock ({@link Timeouts}): a frame that arrives while nobody reads
 *       (an event or a call of the peer between two calls of this side) waits at most that long
 *       plus a tick. While the peer has made no call for {@link #PEER_IDLE_NANOS} (a commander's
 *       wire to a worker, whose frames answer the commander's calls), the turn is taken back only
 *       after {@link #IDLE_PEER_RECLAIM_NANOS}, at the clock's slow ticks: callers that come every
 *       few milliseconds then read their own replies without any thread being woken for the turn
 *       between them, and a frame of the peer that comes unasked waits up to about 20 ms.
 *   <li>The reader thread gives the turn up ({@link #yieldFromReader}) only after it handled a
 *       reply, when every pending call has a follower and the peer made no call for {@link
 *       #QUIET_NANOS}: on a side that serves calls, it keeps reading.
 *   <li>Once the wire is closed the turn goes to the reader thread, which ends the wire.
 * </ul>
 *
 * <p>Thread-safe; its state is guarded by one lock, which also orders the reader's state (its
 * buffer) between the threads that hold the turn one after the other.
 */
final class ReadTurn {

  /** How long a free turn waits for a caller before the reader thread takes it back. */
  static final long RECLAIM_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** How long the peer made no call before a free turn waits {@link #IDLE_PEER_RECLAIM_NANOS}. */
  static final long PEER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** How long a free turn waits for a caller while the peer makes no calls. */
  static final long IDLE_PEER_RECLAIM_NANOS = Timeouts.TICK_NANOS;
  /**
   * The most calls of this side in flight at once for which a caller reads: with more, the reader
   * thread reads for all of them. A caller that reads is a virtual thread of the application as
   * often as not, and under load it waits for a carrier behind the application's work, while the
   * reader thread is scheduled by the kernel: with many calls in flight the hand-off a caller
   * saves is shared by all of them anyway, and the frames of the peer (its calls back, events)
   * must not wait for the application's carriers (under {@code cryo serve} on a loaded machine, a
   * worker's {@code locate} calls then went unanswered for seconds).
   */
  static final int SOLO_CALLS = 1;
  /** How long after the peer's last call the reader thread keeps the turn. */
  static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** A caller waiting for its reply. */
  record Follower(Thread thread, CompletableFuture<?> reply) {
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Follower> followers = new ArrayDeque<>();
  /** Whether bytes of a frame are buffered (asked of the turn's last holder, under the lock). */
  private final BooleanSupplier frameBuffered;
  /** How many calls of this side wait for a reply. */
  private final IntSupplier pendingCalls;
  /** System.nanoTime of the peer's last call read on this wire (any thread). */
  private final LongSupplier lastInboundCall;
  private Thread reader;
  /** Who reads the wire now; null when free. Written under the lock. */
  private volatile Thread holder;
  private long freeSince;
  /** Whether the turn was free at some moment since the clock's last tick. */
  private boolean freedSinceTick;
  private boolean closed;

  ReadTurn(BooleanSupplier frameBuffered, IntSupplier pendingCalls,
      LongSupplier lastInboundCall) {
    this.frameBuffered = frameBuffered;
    this.pendingCalls = pendingCalls;
    this.lastInboundCall = lastInboundCall;
  }

  /** Gives the turn to the wire's reader thread, before it starts. */
  void start(Thread readerThread) {
    lock.lock();
    try {
      reader = readerThread;
      holder = readerThread;
    } finally {
      lock.unlock();
    }
  }

  /** The thread that holds the turn now, null when free. Any thread; no lock. */
  Thread holder() {
    return holder;
  }

  /** Whether the thread holds the turn. Any thread; no lock. */
  boolean heldBy(Thread thread) {
    return holder == thread;
  }

  /**
   * A caller's attempt to read: true when it holds the turn now (it was free, or handed to it);
   * false when another thread holds it, and the caller is then a follower until {@link #leave}.
   */
  boolean lead(Follower follower) {
    lock.lock();
    try {
      if (holder == follower.thread()) {
        return true;
      }
      if (holder == null && !closed) {
        if (pendingCalls.getAsInt() <= SOLO_CALLS) {
          holder = follower.thread();
          followers.remove(follower);
          return true;
        }
        give(reader); // calls in flight at once: the reader thread reads for all of them
      }
      if (!followers.contains(follower)) {
        followers.add(follower);
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** A caller stops waiting (its reply is in, or it gave up); a turn handed to it passes on. */
  void leave(Follower follower) {
    lock.lock();
    try {
      followers.remove(follower);
      if (holder == follower.thread()) {
        holder = null;
        passOn(false);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The leader is done reading: the turn passes on (see the class). */
  void release() {
    lock.lock();
    try {
      holder = null;
      passOn(false);
    } finally {
      lock.unlock();
    }
  }

  /** The reader thread gives the turn up: to a follower, or free (see the class). */
  void yieldFromReader() {
    lock.lock();
    try {
      holder = null;
      passOn(true);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether the reader thread should give the turn up now: it just handled a reply, nothing is
   * buffered, every pending call has a follower, and the peer made no call for a while.
   */
  boolean readerMayYield(long lastInboundCall, long now) {
    if (now - lastInboundCall < QUIET_NANOS || frameBuffered.getAsBoolean()) {
      return false;
    }
    lock.lock();
    try {
      int pending = pendingCalls.getAsInt();
      return !closed && pending <= SOLO_CALLS && pending <= liveFollowers();
    } finally {
      lock.unlock();
    }
  }

  /** The reader thread waits until it holds the turn (handed back, reclaimed, or the end). */
  void awaitReader() {
    Thread me = Thread.currentThread();
    while (true) {
      lock.lock();
      try {
        if (holder == me) {
          return;
        }
        if (holder == null && closed) {
          holder = me;
          return;
        }
      } finally {
        lock.unlock();
      }
      LockSupport.park(this);
    }
  }

  /**
   * The clock's tick: a turn free since at least {@link #RECLAIM_NANOS} ({@link
   * #IDLE_PEER_RECLAIM_NANOS} while the peer makes no calls) goes back to the reader thread. Never
   * blocks (a turn busy at this moment is looked at again at the next tick).
   *
   * @return whether the clock should tick fast ({@link Timeouts}): the turn was free at some
   *     moment since the last tick and the peer makes calls
   */
  boolean tick(long now) {
    if (!lock.tryLock()) {
      return true;
    }
    try {
      boolean peerIdle = peerIdle(now);
      boolean wasFree = freedSinceTick || holder == null;
      freedSinceTick = false;
      if (holder == null && !closed
          && now - freeSince >= (peerIdle ? IDLE_PEER_RECLAIM_NANOS : RECLAIM_NANOS)) {
        give(reader);
      }
      return wasFree && !peerIdle;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the peer made no call on this wire for {@link #PEER_IDLE_NANOS}. */
  private boolean peerIdle(long now) {
    return now - lastInboundCall.getAsLong() >= PEER_IDLE_NANOS;
  }

  /** The wire closed: the turn ends with the reader thread, once its holder lets it go. */
  void close() {
    lock.lock();
    try {
      closed = true;
      if (holder == null) {
        give(reader);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock, the turn free: to the first live follower, the reader thread, or free. */
  private void passOn(boolean fromReader) {
    if (!closed && pendingCalls.getAsInt() > SOLO_CALLS) {
      followers.clear(); // each is woken by its reply, read by the reader thread
      give(reader);
      return;
    }
    for (Iterator<Follower> it = followers.iterator(); it.hasNext(); ) {
      Follower next = it.next();
      it.remove();
      if (!next.reply().isDone() && !closed) {
        give(next.thread());
        return;
      }
    }
    if (!fromReader && (closed || frameBuffered.getAsBoolean() || pendingCalls.getAsInt() > 0)) {
      give(reader);
      return;
    }
    freeSince = System.nanoTime();
    freedSinceTick = true;
    if (!peerIdle(freeSince)) {
      Timeouts.hurry(); // a short reclaim: the clock ticks fast (its slow ticks do the long one)
    }
  }

  private void give(Thread thread) {
    holder = thread;
    LockSupport.unpark(thread);
  }

  /** The turn's state, for a diagnosis: who holds it, who follows. Any thread. */
  @Override
  public String toString() {
    lock.lock();
    try {
      StringBuilder out = new StringBuilder("ReadTurn[holder=")
          .append(holder == null ? "none" : holder.getName() + "#" + holder.threadId())
          .append(closed ? ", closed" : "").append(", followers=");
      for (Follower follower : followers) {
        out.append(follower.thread().getName()).append('#').append(follower.thread().threadId())
            .append(follower.reply().isDone() ? "(done) " : " ");
      }
      return out.append(']').toString();
    } finally {
      lock.unlock();
    }
  }

  private int liveFollowers() {
    int live = 0;
    for (Follower follower : followers) {
      if (!follower.reply().isDone()) {
        live++;
      }
    }
    return live;
  }
}
