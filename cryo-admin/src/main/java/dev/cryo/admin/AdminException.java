package dev.cryo.admin;

/**
 * The admin listener could not start; the message says why, what was kept and what to do, and
 * {@link #reason()} is its machine-readable reason.
 */
public final class AdminException extends RuntimeException {

  /** The reason of a port that could not be bound. */
  public static final String PORT_UNAVAILABLE = "admin_port_unavailable";

  private final String reason;

  AdminException(String reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /** The machine-readable reason, e.g. {@value #PORT_UNAVAILABLE}. */
  public String reason() {
    return reason;
  }
}
