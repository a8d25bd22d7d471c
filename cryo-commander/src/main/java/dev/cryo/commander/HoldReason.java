package dev.cryo.commander;

import java.util.Locale;

/** Why a user is held: his requests wait until the hold is released or their wait runs out. */
public enum HoldReason {
  /** He is being frozen on his worker (an ordered freeze). */
  FREEZING,
  /** He is being moved: frozen on his worker, to be woken on another. */
  MOVING,
  /** He is being dropped. */
  DROPPING,
  /** His worker is quitting into the freezer: he is frozen there and woken elsewhere. */
  QUITTING;

  /** The reason in {@code snake_case}, as the event log and status spell it. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
