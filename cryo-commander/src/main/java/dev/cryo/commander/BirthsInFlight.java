package dev.cryo.commander;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The births in flight: per worker, the requests placed there as a birth (a connection the maps do
 * not know) whose call has not ended yet. The routing maps learn of a birth only when the worker's
 * announcement is folded, which comes just before the call's reply; until then a burst of new
 * connections would all read the worker's occupancy as it was and overshoot
 * {@code --max-users-per-worker}. Each such request holds a {@link Ticket} from the moment it is
 * placed (under the placement lock, in the same step as the admission check that chose the worker)
 * until its call ends, and {@link Supervisor#views()} counts the tickets against the worker.
 *
 * <p>A birth is counted twice for the short time between its announcement's fold and the end of
 * its call: the count errs on the side of refusing, never of admitting. A call that ends without an
 * answer (a timeout) ends its ticket too; a user born by it is counted once its announcement folds.
 *
 * <p>Thread-safe: every method takes this object's monitor, a leaf lock (nothing is called under
 * it). {@link #begin} is called under the placement lock, {@link Ticket#close} from any thread.
 */
final class BirthsInFlight {

  private final Map<String, Integer> counts = new HashMap<>();

  /** Counts one birth in flight on {@code worker} until the ticket returned is closed. */
  synchronized Ticket begin(String worker) {
    Objects.requireNonNull(worker, "worker");
    counts.merge(worker, 1, Integer::sum);
    return new Ticket(worker);
  }

  /** How many births are in flight on {@code worker}. */
  synchronized int count(String worker) {
    return counts.getOrDefault(worker, 0);
  }

  private synchronized void end(String worker) {
    counts.computeIfPresent(worker, (name, count) -> count == 1 ? null : count - 1);
  }

  /**
   * One birth in flight on one worker. Closing it ends the count; a second close does nothing.
   * Thread-safe.
   */
  final class Ticket implements AutoCloseable {

    private final String worker;
    private boolean closed;

    private Ticket(String worker) {
      this.worker = worker;
    }

    /** The worker the birth was placed on. */
    String worker() {
      return worker;
    }

    @Override
    public void close() {
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
      }
      end(worker);
    }
  }
}
