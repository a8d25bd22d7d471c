package dev.cryo.lock;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.TimeUnit;

/**
 * File work that an interrupt neither breaks nor loses.
 *
 * <p>Every {@link java.nio.channels.FileChannel} is interruptible: a thread whose interrupt flag is
 * set, or is set during a read or write, has its channel closed under it
 * ({@link ClosedByInterruptException}). For a lock that is wrong: a release from such a thread
 * would leave the lockfile on disk, a re-entry would read the lock as lost, a take would fail. An
 * interrupt is meant for the waits of this package (for a busy lock), never for its file work.
 *
 * <p>{@link #call} therefore clears the flag, runs the work, runs it again from the start when an
 * interrupt closed a channel during it (each unit of work opens its own channels, changes nothing
 * before its last step and can be repeated), and sets the flag again at the end when it was set
 * before or an interrupt arrived meanwhile: the caller sees its interrupt, and the work is done.
 * {@link #sleep} is a pause inside such work that an interrupt does not cut short. Nested calls
 * restore the flag only at the outermost one.
 *
 * <p>Thread-safe: all state is per thread.
 */
public final class Uninterruptible {

  /** File work that may be repeated from the start. */
  @FunctionalInterface
  public interface Work<T> {
    /** Does the work. */
    T run() throws IOException;
  }

  /** How often one unit of work is repeated before an interrupt storm is given in to. */
  private static final int MAX_REPEATS = 1000;

  /** Per thread: how deep in {@link #call}, and whether an interrupt is owed to the caller. */
  private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

  private static final class State {
    int depth;
    boolean owed;
  }

  private Uninterruptible() {}

  /**
   * Runs {@code work} with the interrupt flag cleared, repeating it when an interrupt closed one of
   * its channels, and leaves the flag set afterwards if it was set before or was set meanwhile.
   *
   * @throws ClosedByInterruptException only after {@value #MAX_REPEATS} interrupted repeats
   */
  public static <T> T call(Work<T> work) throws IOException {
    State state = STATE.get();
    state.owed |= Thread.interrupted();
    state.depth++;
    try {
      for (int repeat = 0; ; repeat++) {
        try {
          return work.run();
        } catch (ClosedByInterruptException e) {
          Thread.interrupted(); // the flag that closed the channel: owed, and cleared for the repeat
          state.owed = true;
          if (repeat >= MAX_REPEATS) {
            throw e;
          }
        }
      }
    } finally {
      state.depth--;
      if (state.depth == 0) {
        boolean owed = state.owed | Thread.interrupted();
        state.owed = false;
        if (owed) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Pauses for {@code millis}, whatever interrupts arrive; the interrupt is owed to the caller (set
   * again at the end of the outermost {@link #call}, or at once outside one).
   */
  public static void sleep(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    boolean interrupted = false;
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      State state = STATE.get();
      if (state.depth > 0) {
        state.owed = true;
      } else {
        Thread.currentThread().interrupt();
      }
    }
  }
}
