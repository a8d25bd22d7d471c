package dev.cryo.commander;

import java.util.Map;

/**
 * Sees what a run does as it happens, for a status page or metrics: every event of the event log,
 * every HTTP call the commander made to a worker, and every wait of a request for its user's
 * hold. Added with {@link Commander#addListener}; it sees what happens from then on.
 *
 * <p>Threads: {@link #event} is called like an {@link EventSink}, under the routing maps' lock, in
 * the order the events happened; {@link #workerCall} and {@link #heldWait} from the thread of the
 * request that made the call or waited. All must return quickly, must not block and must not call
 * back into the commander; a throw is logged and ignored (it never changes the maps nor the
 * reply).
 */
public interface RunListener {

  /**
   * One event, the same as the line the event log gets (see the package description for the
   * shapes); {@code fields} must not be kept past the call without copying.
   *
   * @param event its type ({@code fold}, {@code move}, {@code worker_died}, …)
   * @param fields its fields, in order
   */
  default void event(String event, Map<String, Object> fields) {}

  /**
   * One {@code http} call to a worker ended.
   *
   * @param worker the worker's name
   * @param woke whether the call carried the verdict "frozen": the worker woke the user for it
   * @param answered whether the worker answered it (a reply or a refusal); false when the wire
   *     ended, timed out or refused to send it
   * @param nanos the round trip, from the call's write to its answer or failure
   */
  default void workerCall(String worker, boolean woke, boolean answered, long nanos) {}

  /**
   * A request found its user held (being frozen, moved, dropped, or quit with his worker: see
   * {@link HoldReason}) and waited for the hold to be released before it went on.
   *
   * @param user the user held
   * @param released whether the hold was released within the request's budget (false: the request
   *     was answered 503)
   * @param nanos how long the request waited, from finding the hold to its release or the end of
   *     the budget
   */
  default void heldWait(String user, boolean released, long nanos) {}
}
