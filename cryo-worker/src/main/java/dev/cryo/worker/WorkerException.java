package dev.cryo.worker;

import dev.cryo.wire.protocol.RefusalReason;
import java.util.Locale;
import java.util.Objects;

/**
 * A worker operation that was refused or failed. The message says what happened, what was kept and
 * what to do next; {@link #reason()} is machine-readable, in the protocol's one vocabulary
 * ({@link RefusalReason}: the code the wire carries to the commander, whether it routes the call
 * again, the status the front answers otherwise); {@link #user()} names the user concerned.
 */
public final class WorkerException extends RuntimeException {

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

  private final RefusalReason reason;
  private final String user;

  WorkerException(RefusalReason reason, String user, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.user = user;
  }

  WorkerException(RefusalReason reason, String user, String message) {
    this(reason, user, message, null);
  }

  /**
   * A refusal because the user left while the call or order waited, saying where he went:
   * {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING}.
   */
  static WorkerException userLeft(String user, Where where, String message) {
    return new WorkerException(Objects.requireNonNull(where, "where") == Where.FROZEN
        ? RefusalReason.USER_LEFT_FROZEN : RefusalReason.USER_LEFT_MOVING, user, message, null);
  }

  /** The machine-readable reason. */
  public RefusalReason reason() {
    return reason;
  }

  /** The user concerned, or null. */
  public String user() {
    return user;
  }

  /**
   * Where the user went, for a refusal because he left ({@link RefusalReason#USER_LEFT_FROZEN},
   * {@link RefusalReason#USER_LEFT_MOVING}); null for every other reason.
   */
  public Where where() {
    return switch (reason) {
      case USER_LEFT_FROZEN -> Where.FROZEN;
      case USER_LEFT_MOVING -> Where.MOVING;
      default -> null;
    };
  }

  /**
   * Whether the commander may route the refused call again within its hold
   * ({@link RefusalReason#isRetryable()}): nothing was done by it here.
   */
  public boolean isRetryable() {
    return reason.isRetryable();
  }
}
