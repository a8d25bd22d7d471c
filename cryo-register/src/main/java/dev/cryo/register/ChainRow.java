package dev.cryo.register;

import java.time.Instant;
import java.util.Set;

/**
 * What the three rows of the ownership chain share: a live store and the clock of the last
 * technical contact. Package-private: {@link UserRow}, {@link ConnectionRow} and {@link PageRow}
 * are the public faces.
 */
abstract class ChainRow extends Row {

  /** The field holding the row's live store, born of {@link RegisterRegistry#newStore()}. */
  public static final String STORE = "store";

  /**
   * The field holding the instant of the last technical contact with the row, stamped with the
   * registry's clock at birth unless the caller supplies one.
   */
  public static final String LAST_REFRESH_TS = "last_refresh_ts";

  ChainRow(String key) {
    super(key);
  }

  /**
   * The row's live store: a {@link Store} unless the registry's store factory makes another type.
   * Guarded by {@link #lock()}: take it around every access to the store.
   */
  public final Object store() {
    return find(STORE);
  }

  /**
   * The row's live store as a {@code type}.
   *
   * @throws RegisterException with {@link RegisterException.Reason#WRONG_TYPE} when the store is of
   *     another type
   */
  public final <T> T store(Class<T> type) {
    return get(STORE, type);
  }

  /** The instant of the last technical contact ({@value #LAST_REFRESH_TS}). */
  public final Instant lastRefresh() {
    return (Instant) find(LAST_REFRESH_TS);
  }

  @Override
  void check(String field, Object value) {
    switch (field) {
      case STORE -> {
        if (value == null) {
          throw wrongType(field, value, "a store (not null)");
        }
      }
      case LAST_REFRESH_TS -> requireType(field, value, Instant.class, false);
      default -> { }
    }
  }

  final void requireType(String field, Object value, Class<?> type, boolean nullable) {
    if (value == null ? !nullable : !type.isInstance(value)) {
      throw wrongType(field, value, (nullable ? "a " + type.getSimpleName() + " or null"
          : "a " + type.getSimpleName()));
    }
  }

  final RegisterException wrongType(String field, Object value, String expected) {
    return new RegisterException(RegisterException.Reason.WRONG_TYPE, registerName(), key(),
        "field '" + field + "' of " + getClass().getSimpleName() + " '" + key() + "' must be "
            + expected + ", got " + (value == null ? "null" : "a " + value.getClass().getName())
            + "; nothing was changed: pass " + expected);
  }

  /** An immutable snapshot of a chain set, read under the structure lock while registered. */
  final Set<String> snapshot(KeySet set) {
    Register<?> owner = register;
    if (owner == null) { // not yet born (only its creator sees it) or dropped (frozen)
      return set.snapshot();
    }
    return owner.structure().read(set::snapshot);
  }
}
