package dev.cryo.wire;

import java.util.Objects;

/**
 * The peer's handler refused a call: the error reply's {@link #code()} (a {@link WireRefusal}'s
 * code, or {@code internal} when the peer's handler failed unexpectedly) and {@link #message()}.
 * The wire stays open; whether to retry depends on the code (the protocol defines them).
 */
public final class RemoteFailure extends WireException {

  private final String code;
  private final String remoteMessage;

  /**
   * An error reply.
   *
   * @param method the method of the call that was refused
   * @param code the peer's machine-readable code
   * @param message the peer's message
   */
  public RemoteFailure(String method, String code, String message) {
    super(Reason.REMOTE_FAILURE, "the peer refused " + method + " [" + code + "]: " + message,
        null);
    this.code = Objects.requireNonNull(code, "code");
    this.remoteMessage = Objects.requireNonNull(message, "message");
  }

  /** The peer's machine-readable code. */
  public String code() {
    return code;
  }

  /** The peer's message, as it sent it. */
  public String message() {
    return remoteMessage;
  }
}
