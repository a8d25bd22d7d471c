package dev.cryo.worker;

import java.util.Locale;
import java.util.Objects;

/**
 * A worker operation that was refused or failed. The message says what happened, what was kept and
 * what to do next; {@link #reason()} is machine-readable; {@link #user()} names the user concerned.
 */
public final class WorkerException extends RuntimeException {

  /** Why a worker operation failed; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** The user's semaphore stayed taken past the wait limit; nothing was changed. Retryable. */
    SEMAPHORE_TIMEOUT,
    /** The freezer refused to read, write or drop a parcel; the user was kept as he was. */
    FREEZER_FAILED,
    /**
     * The user left this worker while the call waited for his departure; {@link #where()} says
     * where he went. Retryable elsewhere.
     */
    USER_LEFT,
    /** A wake failed; no row and no lock are left, and the same call may be retried. */
    WAKE_FAILED,
    /**
     * The call brought the verdict "frozen" but the freezer holds no parcel of the user: nothing
     * was created or announced. Not retryable as it is: the maps are wrong about him.
     */
    NO_PARCEL,
    /**
     * The user's parcels were written by a state version the running application cannot read (a
     * newer one, or an upgrade that refused): every parcel was left as it was, with the freezer's
     * unreadable note beside them; nothing was created or announced. Not retryable until another
     * version of the application runs.
     */
    UNREADABLE_PARCEL,
    /** The application's handler threw; the request slot was closed. */
    APPLICATION_FAILED,
    /** The connection is not registered on this worker. */
    UNKNOWN_CONNECTION,
    /**
     * The page named by a call is not on this worker, or hangs from another connection than the
     * call's: a call reaches only the pages of its own connection. Nothing was read or written.
     */
    UNKNOWN_PAGE,
    /**
     * The {@link IdentityLocator} could not say where an identity lives (the commander did not
     * answer); the login changed nothing. Retryable.
     */
    LOCATE_FAILED,
    /**
     * The call's or order's grant names another generation of the user than the one this worker
     * holds him at, or asks it to serve a user it does not hold
     * ({@link dev.cryo.wire.protocol.Grant}); nothing was served, created or changed. Retryable:
     * it was decided on a stale reading of the maps.
     */
    STALE_GRANT,
    /** The connection belongs to another user than the call says. */
    USER_MISMATCH,
    /** The calling thread holds a row lock that the operation would have to take out of order. */
    LOCK_ORDER,
    /**
     * A row the operation needed stayed locked by a call's store action past the bound; nothing
     * was changed. Retryable once that call is done.
     */
    ROW_BUSY,
    /**
     * The user stayed in the middle of a freeze, a wake or a login tail for longer than the order
     * could wait; nothing was changed. Retryable.
     */
    IN_TRANSITION,
    /** The worker has finished (it quit); it serves nothing more. */
    WORKER_FINISHED;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Where a user went who left the worker while a call or an order for him waited: what the
   * caller does next. The announcements of the departure were delivered before the refusal.
   */
  public enum Where {
    /** He is in the freezer ({@code user_frozen} was announced): route the call again with the verdict "frozen". */
    FROZEN,
    /**
     * He is not in the freezer by this worker's hand: being moved, his connection logged in as
     * another identity, or dropped. Hold the call and route it again from the maps, which the
     * announcements delivered before this refusal already changed.
     */
    MOVING;

    /** The place in {@code snake_case}, as the wire carries it. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final String user;
  private final Where where;

  WorkerException(Reason reason, String user, Where where, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.user = user;
    this.where = where;
  }

  WorkerException(Reason reason, String user, String message, Throwable cause) {
    this(reason, user, reason == Reason.USER_LEFT ? Where.MOVING : null, message, cause);
  }

  WorkerException(Reason reason, String user, String message) {
    this(reason, user, message, null);
  }

  /** A {@link Reason#USER_LEFT} refusal saying where he went. */
  static WorkerException userLeft(String user, Where where, String message) {
    return new WorkerException(Reason.USER_LEFT, user, Objects.requireNonNull(where, "where"),
        message, null);
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }

  /** The user concerned, or null. */
  public String user() {
    return user;
  }

  /**
   * For {@link Reason#USER_LEFT}, where the user went (never null then); null for every other
   * reason.
   */
  public Where where() {
    return where;
  }

  /** Whether the same operation may succeed later without the caller changing anything. */
  public boolean isRetryable() {
    return reason == Reason.SEMAPHORE_TIMEOUT || reason == Reason.WAKE_FAILED
        || reason == Reason.USER_LEFT || reason == Reason.LOCATE_FAILED
        || reason == Reason.ROW_BUSY || reason == Reason.IN_TRANSITION
        || reason == Reason.STALE_GRANT;
  }
}
