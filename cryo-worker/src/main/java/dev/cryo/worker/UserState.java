package dev.cryo.worker;

import java.util.Locale;

/** The state of a user's row on a worker, as the row holds it in its {@value #FIELD} field. */
public enum UserState {
  /** Awake: his calls are served. */
  ACTIVE,
  /** Being woken from the freezer: his calls wait for the wake, which makes one disk trip. */
  UNFREEZING;

  /** The name of the field of the user row that holds the state. */
  public static final String FIELD = "state";

  /** The state as written in the row ({@code active}, {@code unfreezing}). */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The state a row's field value names; a row without the field is {@link #ACTIVE}. */
  public static UserState of(Object code) {
    return UNFREEZING.code().equals(code) ? UNFREEZING : ACTIVE;
  }
}
