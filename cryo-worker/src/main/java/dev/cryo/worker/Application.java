package dev.cryo.worker;

/**
 * The application a worker serves: the seam between cryo and the code of a stateful server.
 *
 * <p>The worker calls {@link #handle} once per real call ({@link CallKind#RPC} or
 * {@link CallKind#USER_EVENT}), after the user is awake, the page, its connection and its user are
 * registered and the clocks are stamped, and while the call holds its request slot (so the user
 * cannot be frozen under it). Calls run concurrently, several per user and per page: the
 * application reaches each store only through the {@link CallContext}, which takes the row's lock
 * around the access. What the handler returns is handed back to the caller as it is.
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
}
