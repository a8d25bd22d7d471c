package dev.cryo.wire;

/**
 * The wire is closed: end of stream (the death of the peer), a hostile frame, a failed write, or
 * {@link Wire#close()}. Nothing more can be sent on it; the caller opens a new wire if it wants
 * one. {@link #closeReason()} is the reason the wire gave its handler's {@link
 * WireHandler#onClosed(String)}.
 */
public final class WireClosedException extends WireException {

  private final String closeReason;

  /**
   * A failure because the wire closed.
   *
   * @param wireName the wire's name, for the message
   * @param closeReason why the wire closed ({@code code: sentence})
   */
  public WireClosedException(String wireName, String closeReason) {
    super(Reason.CLOSED, "wire " + wireName + " is closed (" + closeReason
        + "); nothing was sent on it; open a new wire to talk to that peer again", null);
    this.closeReason = closeReason;
  }

  /** Why the wire closed, as given to {@link WireHandler#onClosed(String)}. */
  public String closeReason() {
    return closeReason;
  }
}
