package dev.cryo.wire;

/**
 * The wire is closed: end of stream (the death of the peer), a hostile frame, a failed write, or
 * {@link Wire#close()}. Nothing more can be sent on it; the caller opens a new wire if it wants
 * one. {@link #closeReason()} is the reason the wire gave its handler's {@link
 * WireHandler#onClosed(String)}.
 */
public final class WireClosedException extends WireException {

  private final String closeReason;
  private final boolean sent;

  /**
   * A failure because the wire closed, of an operation whose frame may have reached the peer.
   *
   * @param wireName the wire's name, for the message
   * @param closeReason why the wire closed ({@code code: sentence})
   */
  public WireClosedException(String wireName, String closeReason) {
    this(wireName, closeReason, true);
  }

  /**
   * A failure because the wire closed.
   *
   * @param wireName the wire's name, for the message
   * @param closeReason why the wire closed ({@code code: sentence})
   * @param sent false when the frame was never written (nothing of it reached the peer); true
   *     when it was, or may have been
   */
  public WireClosedException(String wireName, String closeReason, boolean sent) {
    super(Reason.CLOSED, "wire " + wireName + " is closed (" + closeReason + "); " + (sent
        ? "the frame was written before it closed, and whether the peer acted on it is unknown"
        : "nothing was sent on it: the same call may be made again elsewhere")
        + "; open a new wire to talk to that peer again", null);
    this.closeReason = closeReason;
    this.sent = sent;
  }

  /** Why the wire closed, as given to {@link WireHandler#onClosed(String)}. */
  public String closeReason() {
    return closeReason;
  }

  /**
   * Whether the frame of the failed operation was written, or may have been, before the wire
   * closed. False means it never left this side: the peer did not see it, and the operation may
   * be retried on another wire without being done twice.
   */
  public boolean sent() {
    return sent;
  }
}
