package dev.cryo.register;

import dev.cryo.register.RegisterException.Reason;
import java.util.concurrent.TimeUnit;

/**
 * The lock of a row of the chain, which enforces the package's one lock order: rows lock upwards
 * only — a page, then a connection, then a user — and never two rows of one level at once.
 *
 * <p>A waiting acquisition ({@link #lock()}, {@link #lockInterruptibly()}) by a thread that does
 * not hold this lock yet, while it holds the lock of another row of the same level or of a level
 * above, is refused with {@link Reason#LOCK_ORDER} before it waits: such a wait is one half of a
 * deadlock (two tabs each dropping the other's page, a thread holding a connection writing one of
 * its pages while the page's own call locks the connection). Acquisitions that cannot wait for
 * ever are not checked: {@link #tryLock()}, and {@link #tryLock(long, TimeUnit)} whose wait is
 * bounded. A re-entrant acquisition is never refused.
 *
 * <p>The rows held by each thread are counted per level, in a thread-local; the count follows the
 * first acquisition and the last release of each lock by its holder. Rows outside the chain (plain
 * {@link Row}s of other registers) have plain locks and no rank. Thread-safe, as its superclass.
 */
final class RowLock extends java.util.concurrent.locks.ReentrantLock {

  private static final long serialVersionUID = 1L;

  /** The rank of a page row's lock. */
  static final int PAGE = 0;

  /** The rank of a connection row's lock. */
  static final int CONNECTION = 1;

  /** The rank of a user row's lock. */
  static final int USER = 2;

  private static final String[] LEVELS = {"page", "connection", "user"};

  private static final ThreadLocal<int[]> HELD = ThreadLocal.withInitial(() -> new int[3]);

  private final transient Row row;
  private final int level;

  RowLock(Row row, int level) {
    this.row = row;
    this.level = level;
  }

  /**
   * Takes the lock, refusing first when the calling thread holds a row of this level or above.
   *
   * @throws RegisterException {@link Reason#LOCK_ORDER}; the lock is then not taken
   */
  @Override
  public void lock() {
    if (isHeldByCurrentThread()) {
      super.lock();
      return;
    }
    int[] held = HELD.get();
    refuseOutOfOrder(held);
    super.lock();
    held[level]++;
  }

  /** As {@link #lock()}, interruptibly. */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (isHeldByCurrentThread()) {
      super.lockInterruptibly();
      return;
    }
    int[] held = HELD.get();
    refuseOutOfOrder(held);
    super.lockInterruptibly();
    held[level]++;
  }

  /** Takes the lock if it is free, never waiting, so never refused. */
  @Override
  public boolean tryLock() {
    if (!super.tryLock()) {
      return false;
    }
    counted();
    return true;
  }

  /** Takes the lock within a bounded wait, which is not refused: it cannot wait for ever. */
  @Override
  public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
    if (!super.tryLock(timeout, unit)) {
      return false;
    }
    counted();
    return true;
  }

  /** Releases the lock once; the last release takes the row off the thread's count. */
  @Override
  public void unlock() {
    super.unlock();
    if (!isHeldByCurrentThread()) {
      HELD.get()[level]--;
    }
  }

  /**
   * The lowest level at or above {@code level} of which the calling thread holds a row's lock, or
   * -1 when it holds none there: what a waiting acquisition of a row of {@code level} would break.
   */
  static int heldAtOrAbove(int level) {
    int[] held = HELD.get();
    for (int above = level; above <= USER; above++) {
      if (held[above] > 0) {
        return above;
      }
    }
    return -1;
  }

  private void counted() {
    if (getHoldCount() == 1) {
      HELD.get()[level]++;
    }
  }

  private void refuseOutOfOrder(int[] held) {
    for (int above = level; above <= USER; above++) {
      if (held[above] > 0) {
        throw outOfOrder(row, above);
      }
    }
  }

  /** The refusal of locking {@code row} while the thread holds a row of level {@code held}. */
  static RegisterException outOfOrder(Row row, int held) {
    return new RegisterException(Reason.LOCK_ORDER, row.registerName(), row.key(),
        "locking " + row.getClass().getSimpleName() + " '" + row.key() + "' would wait while this "
            + "thread holds the lock of another " + LEVELS[held] + " row, against the lock order "
            + "(a page, then its connection, then its user; never two rows of one level): a "
            + "deadlock in waiting; nothing was changed: release that lock first, or take the "
            + "locks in order");
  }
}
