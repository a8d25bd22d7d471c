package dev.cryo.wire;

/**
 * Thrown by a {@link WireHandler#onCall(String, byte[])} to refuse a call: the wire sends an error
 * reply carrying {@link #code()} and the message, and the caller's future fails with a {@link
 * RemoteFailure} holding the same two. The wire stays open.
 */
public final class WireRefusal extends WireException {

  private final String code;

  /**
   * A refusal to send back.
   *
   * @param code the machine-readable code ({@code [A-Za-z0-9_.:/-]}, 1 to 128 characters), for
   *     instance {@code bad_request}
   * @param message what happened, what was kept and what to do next, for the caller (cut to
   *     {@value Frame#MAX_MESSAGE_CHARS} characters on the wire)
   * @throws IllegalArgumentException when the code is not of that form
   */
  public WireRefusal(String code, String message) {
    super(Reason.HANDLER_REFUSAL, message, null);
    this.code = Frame.checkName("refusal code", code);
  }

  /** The machine-readable code sent to the caller. */
  public String code() {
    return code;
  }
}
