package dev.cryo.commander;

/**
 * How much of its logs a run keeps on disk: the event log's size before it is rotated and how many
 * rotated parts are kept ({@link EventLogFiles}), and the workers' logs in {@code workers/}: how
 * many files are kept and how large one grows before it is cut. Immutable.
 *
 * @param eventsMaxSize the size in bytes past which the live event log is rotated, between two
 *     lines ({@code --events-max-size}, default 64 MiB)
 * @param eventsKeep how many rotated parts of the event log are kept, the oldest removed beyond
 *     ({@code --events-keep}, default 4): a run's log takes at most about
 *     {@code (eventsKeep + 1) * eventsMaxSize}, and the previous run's as much again
 * @param workerLogsKeep how many files {@code workers/} keeps at most: at each spawn the least
 *     recently written logs of workers that no longer run are removed beyond it
 *     ({@code --worker-logs-keep}, default 32); a running worker's log is never removed
 * @param workerLogMaxSize the size in bytes past which a running worker's log is cut: its content
 *     is moved to {@code NAME.log.1} (replacing the one before) and the log begins again
 *     ({@code --worker-log-max-size}, default 16 MiB): one worker's output takes at most about
 *     twice that
 */
public record LogCaps(long eventsMaxSize, int eventsKeep, int workerLogsKeep,
    long workerLogMaxSize) {

  /** The defaults: 64 MiB, 4 parts, 32 worker logs, 16 MiB. */
  public static final LogCaps DEFAULTS = new LogCaps(64L << 20, 4, 32, 16L << 20);

  /** Checks the caps. */
  public LogCaps {
    if (eventsMaxSize < 1 || eventsKeep < 1 || workerLogsKeep < 1 || workerLogMaxSize < 1) {
      throw new IllegalArgumentException("every log cap must be at least 1; got events max size "
          + eventsMaxSize + ", events kept " + eventsKeep + ", worker logs kept " + workerLogsKeep
          + ", worker log max size " + workerLogMaxSize);
    }
  }
}
