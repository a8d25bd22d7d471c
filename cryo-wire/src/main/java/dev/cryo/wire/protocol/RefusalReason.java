package dev.cryo.wire.protocol;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Why a worker refused or failed a call of the commander's: the one vocabulary from the worker to
 * the front. The worker throws with it, the wire carries its {@link #code()} as the code of the
 * error reply, and the commander reads it back with {@link #of(String)} and does what
 * {@link #isRetryable()} and {@link #status()} say.
 *
 * <ul>
 *   <li>{@link #code()}: the spelling on the wire, {@code snake_case}, stable across versions;
 *   <li>{@link #isRetryable()}: whether the commander may route the call again within the user's
 *       hold (to the same worker or another, from the maps the announcements delivered before the
 *       refusal have already changed). Nothing was done by a refused call that may be routed again:
 *       the browser never sees it unless the hold runs out;
 *   <li>{@link #status()}: the HTTP status the front answers when the call is not routed again — at
 *       once for a refusal that is not retryable, when the hold ran out for one that is.
 * </ul>
 *
 * <p>The application's own refusals ({@code dev.cryo.app.Refusal}: a status and a code the
 * application chose) are not this: they are replies, served and sent back as such.
 *
 * <p>A code this version does not know (a newer peer's) reads as {@link #INTERNAL}.
 */
public enum RefusalReason {

  /** The user's semaphore stayed taken past the wait limit; nothing was changed. */
  SEMAPHORE_TIMEOUT(true, 503),
  /** The freezer refused to read, write or drop a parcel; the user was kept as he was. */
  FREEZER_FAILED(false, 500),
  /**
   * The user was frozen ({@code user_frozen} was announced before the refusal) while the call
   * waited: route it again, with the verdict "frozen" and without a pause.
   */
  USER_LEFT_FROZEN(true, 503),
  /**
   * The user is leaving this worker not into its freezer by its hand (a move, a login tail, a
   * drop): hold him and route the call again from the maps.
   */
  USER_LEFT_MOVING(true, 503),
  /** A wake failed and left no row and no lock behind: the same call may be routed again. */
  WAKE_FAILED(true, 503),
  /**
   * The call brought the verdict "frozen" but the freezer holds no parcel of the user: nothing was
   * created or announced. Routed again (a drain's parcel may not be written yet), by any worker;
   * when the hold runs out the maps are wrong about him and the front says his state is missing.
   */
  NO_PARCEL(true, 503),
  /**
   * The user's parcels were written by a state version the running application cannot read: every
   * parcel was left as it was, with the freezer's unreadable note beside them; nothing was created
   * or announced. Not routed again: the front answers with an error page until another version of
   * the application runs.
   */
  UNREADABLE_PARCEL(false, 503),
  /** The application's handler threw outside cryo-app's own reply; the request slot was closed. */
  APPLICATION_FAILED(false, 500),
  /** The connection is not registered on this worker. */
  UNKNOWN_CONNECTION(false, 500),
  /**
   * The call's cookie is not the connection's any more: a login or a logout rotated it
   * ({@link HttpCall#credential()}), so the cookie it brought is retired. Nothing was served; the
   * commander answers it as a connection the run does not know, and the front gives the client a
   * fresh guest's connection.
   */
  STALE_CREDENTIAL(false, 403),
  /**
   * The call's cookie was retired by a login or a logout on its connection moments ago (within the
   * worker's grace): a request the browser sent before it took the new cookie. Nothing was served;
   * the front answers 409 and sets no cookie, so the browser keeps the one the login gave it, and
   * its next request carries that one.
   */
  COOKIE_ROTATED(false, 409),
  /**
   * The page named is not on this worker, or hangs from another connection than the call's: a call
   * reaches only the pages of its own connection. Nothing was read or written.
   */
  UNKNOWN_PAGE(false, 500),
  /**
   * A login could not learn where its identity lives (the commander did not answer); the login
   * changed nothing.
   */
  LOCATE_FAILED(true, 503),
  /**
   * The call's or order's grant names another generation of the user than the one the worker holds
   * him at, or asks it to serve a user it does not hold ({@link Grant}): decided on a stale reading
   * of the maps, nothing was served, created or changed; routed again from the maps.
   */
  STALE_GRANT(true, 503),
  /** The connection or page belongs to another user than the call says: routed again. */
  USER_MISMATCH(true, 503),
  /** The calling thread held a row lock the operation would have had to take out of order. */
  LOCK_ORDER(false, 500),
  /**
   * A row the operation needed stayed locked by a call's store action past the bound; nothing was
   * changed.
   */
  ROW_BUSY(true, 503),
  /**
   * The user stayed in the middle of a freeze, a wake or a login tail for longer than the operation
   * could wait; nothing was changed.
   */
  IN_TRANSITION(true, 503),
  /** The worker has finished (it quit) and serves nothing more: routed elsewhere. */
  WORKER_FINISHED(true, 503),
  /** The message did not read (missing or malformed fields): the sender's defect. */
  BAD_REQUEST(false, 500),
  /** Anything else the worker did not expect, or a code this version does not know; its log says more. */
  INTERNAL(false, 500);

  private static final Map<String, RefusalReason> BY_CODE = new HashMap<>();

  static {
    for (RefusalReason reason : values()) {
      BY_CODE.put(reason.code(), reason);
    }
  }

  private final boolean retryable;
  private final int status;

  RefusalReason(boolean retryable, int status) {
    this.retryable = retryable;
    this.status = status;
  }

  /** The spelling on the wire: the constant's name in {@code snake_case}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether the commander may route a call refused for this reason again within its hold. */
  public boolean isRetryable() {
    return retryable;
  }

  /**
   * The HTTP status the front answers with when the call is not routed again: 503 for what another
   * moment (or another version of the application) may mend, 500 for a defect.
   */
  public int status() {
    return status;
  }

  /**
   * The reason spelled {@code code} on the wire; {@link #INTERNAL} for null or a code this version
   * does not know.
   */
  public static RefusalReason of(String code) {
    return code == null ? INTERNAL : BY_CODE.getOrDefault(code, INTERNAL);
  }
}
