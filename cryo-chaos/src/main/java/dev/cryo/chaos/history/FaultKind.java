package dev.cryo.chaos.history;

import java.util.Locale;

/** The faults the nemesis injects into a run. */
public enum FaultKind {
  /** {@code kill -9} of a worker. */
  KILL_WORKER,
  /** {@code kill -9} of the commander, then {@code cryo serve} again on the same home. */
  KILL_COMMANDER,
  /** {@code SIGSTOP} of a worker past two heartbeats, then {@code SIGCONT}. */
  PAUSE_WORKER,
  /** {@code cryo reload} under load. */
  RELOAD,
  /** {@code cryo stop --mode drain}, then {@code cryo serve} again on the same home. */
  DRAIN_RESTART,
  /** {@code cryo stop --mode drain} while a {@code cryo reload} quits a worker, then a new serve. */
  DRAIN_DURING_RELOAD,
  /** Moves of one user as fast as they go while his pages write. */
  MOVE_STORM,
  /** The file system of the run's home filled up, then space given back. */
  DISK_FULL;

  /** The name in the history: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind a history names. */
  public static FaultKind of(String wireName) {
    return valueOf(wireName.toUpperCase(Locale.ROOT));
  }
}
