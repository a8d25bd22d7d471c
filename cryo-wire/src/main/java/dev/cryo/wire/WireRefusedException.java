package dev.cryo.wire;

/**
 * The wire refused to send: {@link WireException.Reason#TOO_MANY_PENDING} (the pending-call limit
 * is reached; retry once some replies came back) or {@link WireException.Reason#FRAME_TOO_LARGE}
 * (the frame would pass the frame or header limit; send less). In both cases nothing was sent and
 * the wire stays open.
 */
public final class WireRefusedException extends WireException {

  /**
   * A refusal before sending.
   *
   * @param reason {@link WireException.Reason#TOO_MANY_PENDING} or {@link
   *     WireException.Reason#FRAME_TOO_LARGE}
   * @param message what was refused and what to do
   */
  public WireRefusedException(Reason reason, String message) {
    super(reason, message, null);
    if (reason != Reason.TOO_MANY_PENDING && reason != Reason.FRAME_TOO_LARGE) {
      throw new IllegalArgumentException("not a refusal before sending: " + reason);
    }
  }
}
