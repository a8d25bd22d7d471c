package dev.cryo.app;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The user's turn of one call or one hook, as the {@link Call} or {@link Stay} it was given sees
 * it: open while the handler (or hook) runs, ended by the {@link Dispatcher} when it returns or
 * throws. From then on every use of that call, of that stay and of the {@link State}s they gave
 * throws an {@link IllegalStateException} naming the route (or hook), and reaches nothing of the
 * host: a write can never run outside its user's turn, nor meet a worker the user has left.
 *
 * <p>Thread-safe. A use that began before the end finishes before {@link #end()} returns (a use
 * holds the read side of a lock, the end takes its write side), so no use overlaps the user's next
 * call; a use begun by a thread still running after the end throws.
 */
final class Turn {

  private final String what;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private boolean ended; // guarded by lock

  /**
   * @param what what the turn serves, for the refusal: "the call of route POST /api/x", "the onWake
   *     hook of 'anna'"
   */
  Turn(String what) {
    this.what = what;
  }

  /**
   * Runs {@code action} within the turn.
   *
   * @throws IllegalStateException when the turn ended; nothing was run
   */
  <T> T within(Supplier<T> action) {
    lock.readLock().lock();
    try {
      if (ended) {
        throw new IllegalStateException(what + " has ended: its handler returned, and with it the"
            + " user's turn; nothing was read, written or sent: use a Call (or a Stay), and the"
            + " states it gave, only while the handler runs — work that must reach the user later"
            + " comes back to him as a request of its own");
      }
      return action.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Runs {@code action} within the turn; as {@link #within(Supplier)}. */
  void run(Runnable action) {
    within(() -> {
      action.run();
      return null;
    });
  }

  /** Ends the turn, once every use in progress has returned. Idempotent. */
  void end() {
    lock.writeLock().lock();
    try {
      ended = true;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** {@code host} as seen from within this turn: every method runs {@link #within} it. */
  StateHost guard(StateHost host) {
    return new StateHost() {
      @Override
      public String user() {
        return within(host::user);
      }

      @Override
      public String worker() {
        return within(host::worker);
      }

      @Override
      public Object read(Scope scope, String pageId, String key) {
        return within(() -> host.read(scope, pageId, key));
      }

      @Override
      public void write(Scope scope, String pageId, String key, Object plain) {
        run(() -> host.write(scope, pageId, key, plain));
      }
    };
  }

  @Override
  public String toString() {
    return "Turn of " + what;
  }
}
