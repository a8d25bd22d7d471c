package dev.cryo.commander;

import java.util.Locale;

/** Where a worker is in its life, as the commander sees it. */
public enum WorkerState {
  /** Spawned; its presentation has not come yet. */
  STARTING,
  /** Presented; it serves. */
  RUNNING,
  /** Told to quit; it serves no new placement and exits once its users are frozen. */
  QUITTING,
  /** Its wire ended or its process exited; nothing is sent to it any more. */
  DEAD;

  /** The state in {@code snake_case}, as status.json spells it. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
