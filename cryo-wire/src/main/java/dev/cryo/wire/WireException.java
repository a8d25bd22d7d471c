package dev.cryo.wire;

import java.util.Locale;
import java.util.Objects;

/**
 * A failure of the wire, unchecked. The message says what happened, what was kept and what to do
 * next; {@link #reason()} is machine-readable. Subclasses name the case: {@link
 * WireClosedException}, {@link WireTimeoutException}, {@link WireRefusedException}, {@link
 * RemoteFailure} (the peer's handler refused) and {@link WireRefusal} (thrown by this side's
 * handler to refuse a call).
 */
public class WireException extends RuntimeException {

  /** Why the wire failed an operation; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** The wire is closed (end of stream, a hostile frame, a failed write, or close()). */
    CLOSED,
    /** A call got no reply in time; its id is abandoned. */
    TIMEOUT,
    /** A call was refused before sending: too many calls are pending. Retryable. */
    TOO_MANY_PENDING,
    /** A frame would exceed the frame or header limit; nothing was sent. */
    FRAME_TOO_LARGE,
    /** The peer's handler refused the call with an error reply ({@link RemoteFailure#code()}). */
    REMOTE_FAILURE,
    /** This side's handler refuses a call ({@link WireRefusal#code()}). */
    HANDLER_REFUSAL;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;

  /**
   * A wire failure with its reason and message.
   *
   * @param reason the machine-readable reason, never null
   * @param message what happened, what was kept, what to do next
   * @param cause the underlying failure, or null
   */
  public WireException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }

  /** Whether the same operation may succeed later without the caller changing anything. */
  public boolean isRetryable() {
    return reason == Reason.TOO_MANY_PENDING;
  }
}
