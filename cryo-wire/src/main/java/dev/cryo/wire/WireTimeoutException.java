package dev.cryo.wire;

/**
 * Nothing came in time: a call got no reply within its timeout (its id is now abandoned: a late
 * reply is dropped), or {@link WireListener#accept(java.time.Duration)} saw no connection. The wire
 * (or listener) stays as it was; the caller decides whether to try again or to give the peer up.
 */
public final class WireTimeoutException extends WireException {

  /**
   * A timeout.
   *
   * @param message what waited for what, for how long, and what was kept
   */
  public WireTimeoutException(String message) {
    super(Reason.TIMEOUT, message, null);
  }
}
