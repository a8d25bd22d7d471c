package dev.cryo.worker;

import java.util.Locale;

/** Where a worker is in its life, as its photo tells it. */
public enum WorkerState {
  /** Serving, admitting new users. */
  RUNNING,
  /** A quit began: its users are leaving, and users arriving late leave too. */
  QUITTING,
  /** Quit (or closed): it serves nothing more. */
  FINISHED;

  /** The state in {@code snake_case}, as the wire carries it. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
