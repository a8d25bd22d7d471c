package dev.cryo.app;

import java.util.Locale;
import java.util.Objects;

/**
 * A state operation that was refused. The message says what happened, what was kept and what to
 * do; {@link #reason()} is machine-readable; {@link #field()} names the field at fault, when one is.
 */
public class StateException extends RuntimeException {

  /** Why a state operation was refused; {@link #code()} is the stable spelling. */
  public enum Reason {
    /** The value cannot be frozen (not plain data, cyclic, too deep); nothing was written. */
    NOT_FREEZABLE,
    /** What is stored does not read into the class (an incompatible version); left as stored. */
    UNREADABLE,
    /** The page is not one of the call's connection's; answered 404 when not caught. */
    UNKNOWN_PAGE,
    /** The state's holder (the user, the page) left; nothing was read or written. */
    GONE,
    /** The class cannot be a state class, or shares its storage name with another one. */
    BAD_STATE_CLASS;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final String field;

  /**
   * A refusal.
   *
   * @param reason why
   * @param field the field at fault (a path such as {@code Sheet.lines[2]}), or null
   * @param message what happened, what was kept, what to do
   * @param cause the cause, or null
   */
  public StateException(Reason reason, String field, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.field = field;
  }

  /** A refusal naming a field, with no cause. */
  public StateException(Reason reason, String field, String message) {
    this(reason, field, message, null);
  }

  /** A refusal with no field and no cause. */
  public StateException(Reason reason, String message) {
    this(reason, null, message, null);
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }

  /** The field at fault, as a path from the state's class ({@code Job.worker}), or null. */
  public String field() {
    return field;
  }
}
