package dev.cryo.register;

import java.util.Locale;
import java.util.Objects;

/**
 * A {@link Store} operation that was refused. A refused operation changed nothing in the store; the
 * message says what happened and what to do, and {@link #reason()} is machine-readable.
 */
public final class StoreException extends IllegalArgumentException {

  /** Why a store operation was refused; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** The path is empty, or has an empty segment ({@code "a..b"}, {@code ".a"}, {@code "a."}). */
    MALFORMED_PATH,
    /** A segment of the path goes through a value that is neither a map nor a list. */
    NOT_A_CONTAINER,
    /** A segment that meets a list is not a decimal index. */
    NOT_AN_INDEX,
    /** A list index is past the end of the list (one past the end appends, where writing). */
    INDEX_OUT_OF_RANGE,
    /** A value, or a value nested inside it, is not one the store holds (null included). */
    UNSUPPORTED_VALUE,
    /** A map key is empty or contains {@code '.'}, so no path could address it. */
    INVALID_KEY,
    /** The value nests deeper than {@link Store#MAX_DEPTH} (a map or list that contains itself). */
    TOO_DEEP,
    /** The value at the path is not of the type the caller asked for. */
    WRONG_TYPE;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final String path;

  StoreException(Reason reason, String path, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason);
    this.path = path;
  }

  /** The machine-readable reason of this refusal. */
  public Reason reason() {
    return reason;
  }

  /** The path the refused operation addressed (may be null when none was given). */
  public String path() {
    return path;
  }
}
