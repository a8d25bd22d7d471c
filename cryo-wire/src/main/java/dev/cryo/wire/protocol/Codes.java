package dev.cryo.wire.protocol;

/**
 * The error codes a worker's refusal carries on the wire (the code of an error reply), and what
 * the commander does with each.
 */
public final class Codes {

  /** The user was frozen while the call waited: route it again with the verdict "frozen". */
  public static final String USER_LEFT_FROZEN = "user_left_frozen";
  /** The user is leaving this worker (a move, a quit): hold him and route the call again. */
  public static final String USER_LEFT_MOVING = "user_left_moving";
  /** The verdict "frozen" came but no parcel is in the freezer: not retryable. */
  public static final String NO_PARCEL = "no_parcel";
  /**
   * The user's parcels were written by a state version the running application cannot read; they
   * are kept as they were: not retryable, answered with an error page.
   */
  public static final String UNREADABLE_PARCEL = "unreadable_parcel";
  /** The worker has quit: route elsewhere. */
  public static final String WORKER_FINISHED = "worker_finished";
  /** A wake failed and left nothing behind: the same call may be retried. */
  public static final String WAKE_FAILED = "wake_failed";
  /** The user's semaphore stayed taken past the wait limit: retryable. */
  public static final String SEMAPHORE_TIMEOUT = "semaphore_timeout";
  /** A login could not learn where its identity lives (the commander did not answer): retryable. */
  public static final String LOCATE_FAILED = "locate_failed";
  /** A row the worker needed stayed locked by a call past its bound; nothing changed: retryable. */
  public static final String ROW_BUSY = "row_busy";
  /** The user was between two states (a freeze, a wake, a login tail) past the bound: retryable. */
  public static final String IN_TRANSITION = "in_transition";
  /**
   * The call's grant names a generation of the user that is not the one the worker holds him at,
   * or asks it to serve a user it does not hold ({@link Grant}): decided on a stale reading of the
   * maps, it did nothing; retryable, routed again from the maps.
   */
  public static final String STALE_GRANT = "stale_grant";
  /** The connection belongs to another user than the call says. */
  public static final String USER_MISMATCH = "user_mismatch";
  /** The message did not read (missing or malformed fields). */
  public static final String BAD_REQUEST = "bad_request";
  /** Anything else the worker did not expect; its log says more. */
  public static final String INTERNAL = "internal";

  /** Whether the commander may route a call refused with {@code code} again within its hold. */
  public static boolean isRetryable(String code) {
    return USER_LEFT_FROZEN.equals(code) || USER_LEFT_MOVING.equals(code)
        || WAKE_FAILED.equals(code) || SEMAPHORE_TIMEOUT.equals(code)
        || WORKER_FINISHED.equals(code) || LOCATE_FAILED.equals(code) || ROW_BUSY.equals(code)
        || IN_TRANSITION.equals(code) || STALE_GRANT.equals(code);
  }

  private Codes() {}
}
