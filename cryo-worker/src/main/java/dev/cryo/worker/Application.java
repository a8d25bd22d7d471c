package dev.cryo.worker;

import java.util.List;

/**
 * The application a worker serves: the seam between cryo and the code of a stateful server.
 *
 * <p>The worker calls {@link #handle} once per real call ({@link CallKind#RPC} or
 * {@link CallKind#USER_EVENT}), after the user is awake, the page, its connection and its user are
 * registered and the clocks are stamped, and while the call holds its request slot (so the user
 * cannot be frozen under it). Calls run concurrently, several per user and per page: the
 * application reaches each store only through the {@link CallContext}, which takes the row's lock
 * around the access. What the handler returns is handed back to the caller as it is.
 *
 * <p>Two defaulted hooks tell the application of its users' stays beyond their calls:
 * {@link #beforeFreeze} and {@link #pagesClosed}. A hook reaches a user's stores through the
 * worker's registry, each under its row's lock, and changes no row's life (no birth, no drop, no
 * login): the lifecycle goes through the worker.
 */
@FunctionalInterface
public interface Application {

  /**
   * Serves one call.
   *
   * @return the reply, handed back to the caller of {@link Worker#call} unchanged
   * @throws Exception anything; the worker closes the request slot and reports it as a
   *     {@link WorkerException} with {@link WorkerException.Reason#APPLICATION_FAILED}
   */
  Object handle(CallContext context) throws Exception;

  /**
   * Called once before a user leaves by the freezer — an ordered freeze, a transfer, the idle valve,
   * a quit — with none of his calls in flight (save calls a quit cut), before his rows are read for
   * the parcels: what the hook writes into his stores is frozen with him. Runs on the departing
   * thread with no lock of the worker held. A throw is logged and the freeze goes on. Not called for
   * an expiry (a drop: see {@link #pagesClosed}) nor for a login tail (the connection moves whole),
   * nor for a user whose calls a quit cut (they may hold his rows for ever: he is frozen as he is).
   *
   * @param worker the worker
   * @param user the user leaving
   * @param cause {@code "freeze"} (ordered), {@code "transfer"}, {@code "idle"} or {@code "quit"}
   */
  default void beforeFreeze(Worker worker, String user, String cause) {}

  /**
   * Called after pages were closed for good — dropped with their page, connection or user (an
   * expiry included), their drops announced — never when they leave by a freeze or a login tail.
   * Runs on the dropping thread, with no lock of the worker held; the user may be gone with them.
   * Not called for the expiry of a user whose calls a quit cut. A throw is logged.
   *
   * @param worker the worker
   * @param user the pages' user
   * @param pageIds the pages closed
   */
  default void pagesClosed(Worker worker, String user, List<String> pageIds) {}
}
