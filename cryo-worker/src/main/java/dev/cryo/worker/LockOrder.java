package dev.cryo.worker;

import dev.cryo.register.PageRow;
import dev.cryo.wire.protocol.RefusalReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The worker's one lock order, and what enforces it.
 *
 * <p><b>The rule.</b> A user's tenant lock comes first; under it the row locks of the registry
 * (page, then connection, then user, as cryo-register's order says); then the registry's
 * structure lock; then the announcer's monitor. Two tenant locks are taken in the order of the
 * users' names. Nothing holding a row lock takes a tenant lock: a store action — the only way an
 * application holds a row lock — asking for a lifecycle operation (opening or dropping a page, a
 * login, a drop, a freeze, a call, a photo) is refused with
 * {@link RefusalReason#LOCK_ORDER} when the tenant lock is taken, before anything is
 * changed.
 *
 * <p><b>Why this way round.</b> The registry's seams run under page locks and may lock the
 * page's connection and user; a drop takes them under the tenant lock, because its rows and its
 * announcements must change together. Were a store action allowed to take a tenant lock, a
 * handler inside a page's store opening a page, or logging in, would wait for the tenant lock of
 * a drop that waits for that page: a deadlock.
 *
 * <p><b>Bounded.</b> A thread holding a tenant lock, a disk thread, or a semaphore never waits for
 * a row lock a store action may hold: it tries ({@link #tryLockAll}), and when a row is busy lets
 * go of everything and waits for it outside every lock ({@link #awaitFree}), within a bound. So a
 * store action stuck forever holds its own call, never a tenant, a disk thread or a quit.
 *
 * <p>Thread-safe; the store-action count is per thread.
 */
final class LockOrder {

  private static final ThreadLocal<int[]> STORE_ACTIONS = ThreadLocal.withInitial(() -> new int[1]);

  private LockOrder() {}

  /** Marks the calling thread inside a store action (it holds a row lock); nests. */
  static void enterStoreAction() {
    STORE_ACTIONS.get()[0]++;
  }

  /** Marks the end of the calling thread's innermost store action. */
  static void exitStoreAction() {
    STORE_ACTIONS.get()[0]--;
  }

  /** Whether the calling thread is inside a store action. */
  static boolean inStoreAction() {
    return STORE_ACTIONS.get()[0] > 0;
  }

  /**
   * A user's tenant lock: a re-entrant lock that refuses, with
   * {@link RefusalReason#LOCK_ORDER}, to be taken by a thread inside a store action.
   */
  static final class TenantLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    private final String user;

    TenantLock(String user) {
      this.user = user;
    }

    @Override
    public void lock() {
      if (!isHeldByCurrentThread()) {
        refuseInsideStoreAction(user);
      }
      super.lock();
    }
  }

  /**
   * Refuses, with {@link RefusalReason#LOCK_ORDER}, a lifecycle operation on
   * {@code user} asked by a thread inside a store action.
   */
  static void refuseInsideStoreAction(String user) {
    if (inStoreAction()) {
      throw new WorkerException(RefusalReason.LOCK_ORDER, user, "a lifecycle operation"
          + " on '" + user + "' (opening or dropping a page, a login, a drop, a freeze, a call,"
          + " a photo) was asked from inside a store action, which holds a row lock; nothing was"
          + " changed: return from the store action first, then ask (the worker's lock order"
          + " takes a user's lock before any row lock)");
    }
  }

  /**
   * Thrown, stackless, by work that found a row it needed locked by a call's store action and let
   * go of everything it held: whoever runs the work tries again later, within a bound.
   */
  static final class RowBusy extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The busy row, for the messages: "the user row of 'anna'". */
    RowBusy(String what) {
      super(what, null, false, false);
    }
  }

  /**
   * Tries every lock, in the order given, without waiting.
   *
   * @return null when all are now held by the calling thread; else the first busy one, and none of
   *     them is held
   */
  static ReentrantLock tryLockAll(List<ReentrantLock> locks) {
    for (int i = 0; i < locks.size(); i++) {
      ReentrantLock lock = locks.get(i);
      if (!lock.tryLock()) {
        unlockAll(locks.subList(0, i));
        return lock;
      }
    }
    return null;
  }

  /** Releases every lock of {@link #tryLockAll}, last first. */
  static void unlockAll(List<ReentrantLock> locks) {
    for (int i = locks.size() - 1; i >= 0; i--) {
      locks.get(i).unlock();
    }
  }

  /**
   * Waits until {@code busy} is free, up to {@code deadlineNanos} ({@link System#nanoTime()}); the
   * caller holds no lock of the worker. An interrupt ends the wait and is kept.
   *
   * @return whether it was free before the deadline
   */
  static boolean awaitFree(ReentrantLock busy, long deadlineNanos) {
    long remaining = deadlineNanos - System.nanoTime();
    try {
      if (remaining > 0 && busy.tryLock(remaining, TimeUnit.NANOSECONDS)) {
        busy.unlock();
        return true;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  /**
   * The page locks a drop of {@code pages} would take under the tenant lock: the pages' own when
   * the registry has a detach seam ({@code registry.seams().detaches()}: its drops lock each page
   * they take), none otherwise.
   */
  static List<ReentrantLock> pageLocks(boolean detaches, List<PageRow> pages) {
    if (!detaches || pages.isEmpty()) {
      return List.of();
    }
    List<ReentrantLock> locks = new ArrayList<>(pages.size());
    for (PageRow page : pages) {
      locks.add(page.lock());
    }
    return locks;
  }
}
