package dev.cryo.register;

import java.util.Locale;
import java.util.Objects;

/**
 * A register or registry operation that was refused. A refused operation changed nothing; its
 * message says what happened, what was kept and what to do next, and {@link #reason()} is
 * machine-readable.
 *
 * <p>{@link Reason#BEING_DROPPED} is the one retryable refusal: another call is demolishing the row
 * concerned, and the same call may succeed once that demolition is over.
 */
public final class RegisterException extends RuntimeException {

  /** Why an operation was refused; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** A row with that key is already registered. */
    DUPLICATE_KEY,
    /** No row with that key is registered. */
    UNKNOWN_KEY,
    /** The caller passed {@value Row#KEY_FIELD}: a row's key is given apart and never changed. */
    RESERVED_FIELD,
    /** The caller passed a field of the ownership chain, which only the registry's lifecycle writes. */
    CHAIN_FIELD,
    /** Rows of a primary register are created and dropped only by the registry's lifecycle. */
    CHAIN_MANAGED,
    /** {@code keysBy} on a field the register does not index. */
    NOT_INDEXED,
    /** An index on a field whose value is a live set of the chain, which no index can follow. */
    NOT_INDEXABLE,
    /** A register with that name is already hosted (the three primary names included). */
    DUPLICATE_REGISTER,
    /** No register with that name is hosted. */
    UNKNOWN_REGISTER,
    /** A field the core gives meaning to was passed a value of the wrong type. */
    WRONG_TYPE,
    /** A child page (one with a parent page) was given no root page. */
    CHILD_WITHOUT_ROOT,
    /** A login onto a name carrying the guest prefix: nobody logs in as a guest. */
    GUEST_TARGET,
    /** A page was created for an existing connection with a user that does not own it. */
    USER_MISMATCH,
    /** Another call is dropping the row concerned; retry once it is gone. */
    BEING_DROPPED,
    /** The calling thread holds a row lock that would have to be taken out of order. */
    LOCK_ORDER;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final String register;
  private final String key;

  RegisterException(Reason reason, String register, String key, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason);
    this.register = register;
    this.key = key;
  }

  /** The machine-readable reason of this refusal. */
  public Reason reason() {
    return reason;
  }

  /** The name of the register concerned, or null when the refusal concerns no single register. */
  public String register() {
    return register;
  }

  /** The key concerned (a row key or a register name), or null. */
  public String key() {
    return key;
  }

  /** Whether the same call may succeed later without the caller changing anything. */
  public boolean isRetryable() {
    return reason == Reason.BEING_DROPPED;
  }
}
