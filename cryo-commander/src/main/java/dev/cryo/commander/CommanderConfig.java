package dev.cryo.commander;

import dev.cryo.control.StopMode;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How a {@link Commander} runs: its home, its workers, its limits and its intervals. Made by
 * {@link #builder(Path, String)}; immutable.
 *
 * @param home the run directory: run lock, {@code run.json}, {@code status.json}, the event log,
 *     the freezer ({@code freezer/}), the workers' sockets and logs
 * @param workers how many workers start with the run, and the fewest kept alive after a death
 * @param maxWorkers the most workers alive or starting at once ({@code --max-workers})
 * @param maxUsersPerWorker the most users placed on one worker ({@code --max-users-per-worker})
 * @param workerHeapBytes each worker JVM's heap ceiling ({@code --worker-heap})
 * @param application the application's class name ({@code --app})
 * @param appPath the jar the application is loaded from, or null for the classpath
 * @param workerCommand how a worker JVM is started
 * @param clock the wall clock of timestamps (status, run.json)
 * @param heartbeat the tick: every running worker is pinged, status.json written, the stop
 *     request read; two beats without a word from a worker, or two beats in which it answered
 *     no ping, and its group is killed
 * @param presentation how long a spawned worker has to present itself
 * @param hold how long a request waits in all for a held user (and for retries)
 * @param callTimeout the longest an HTTP call to a worker may take
 * @param orderTimeout the longest a freeze or drop order may take
 * @param startAttempts how many times one worker's start is tried before it is abandoned
 * @param startBackoff the pause after the first failed start, doubled after each next one
 * @param retryAfterSeconds the {@code Retry-After} of the commander's 503s
 * @param memoryAvailable the machine's free memory (default: {@code MemAvailable})
 * @param onStopRequest called once, from the tick, when a stop request for this run appears
 * @param housekeeping the expiry of the frozen and the sweep of orphan folders
 * @param occupancy the occupancy check: a worker whose heap stays full replaced, a spare one closed
 * @param placementHeader whether every reply a worker served carries {@code Cryo-Placement:
 *     worker=NAME; generation=G} (the worker and the grant's generation that served it), for an
 *     auditor checking that no placement served twice ({@code --placement-header}; off by default)
 * @param logCaps how much of the event log and of the workers' logs is kept on disk
 * @param passivation when workers freeze their idle users (the builder's default: off)
 * @param checkpoint how often workers write behind the state of the users who changed, so that
 *     a worker's death loses at most that much ({@code --checkpoint}); null when off (the
 *     builder's default)
 * @param appConfig the application's configuration file ({@code --app-config}), read at the
 *     start and at every reload ({@link AppConfigFile}); null for none
 * @param workerJvmOptions options of every worker JVM beyond cryo's own
 *     ({@code --worker-jvm-option}), until a reload gives others
 */
public record CommanderConfig(Path home, int workers, int maxWorkers, int maxUsersPerWorker,
    long workerHeapBytes, String application, Path appPath, WorkerCommand workerCommand,
    Clock clock, Duration heartbeat, Duration presentation, Duration hold, Duration callTimeout,
    Duration orderTimeout, int startAttempts, Duration startBackoff, long retryAfterSeconds,
    Supplier<OptionalLong> memoryAvailable, Consumer<StopMode> onStopRequest,
    Housekeeping housekeeping, Occupancy occupancy, boolean placementHeader, LogCaps logCaps,
    Passivation passivation, Duration checkpoint, Path appConfig,
    java.util.List<String> workerJvmOptions) {

  /** Checks the parts. */
  public CommanderConfig {
    workerJvmOptions = workerJvmOptions == null ? java.util.List.of()
        : java.util.List.copyOf(workerJvmOptions);
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(application, "application");
    Objects.requireNonNull(workerCommand, "workerCommand");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(memoryAvailable, "memoryAvailable");
    Objects.requireNonNull(onStopRequest, "onStopRequest");
    Objects.requireNonNull(housekeeping, "housekeeping");
    Objects.requireNonNull(occupancy, "occupancy");
    Objects.requireNonNull(logCaps, "logCaps");
    Objects.requireNonNull(passivation, "passivation");
    if (checkpoint != null && (checkpoint.isNegative() || checkpoint.isZero())) {
      throw new IllegalArgumentException("a checkpoint period is longer than zero (or off), got "
          + checkpoint);
    }
    if (workers < 1 || maxWorkers < workers || maxUsersPerWorker < 1 || workerHeapBytes < 1
        || startAttempts < 1 || retryAfterSeconds < 0) {
      throw new IllegalArgumentException("need 1 <= workers <= maxWorkers, maxUsersPerWorker >= 1,"
          + " workerHeapBytes >= 1, startAttempts >= 1, retryAfterSeconds >= 0; got workers "
          + workers + ", maxWorkers " + maxWorkers + ", maxUsersPerWorker " + maxUsersPerWorker
          + ", workerHeapBytes " + workerHeapBytes + ", startAttempts " + startAttempts);
    }
    for (Duration duration : new Duration[] {heartbeat, presentation, hold, callTimeout,
        orderTimeout, startBackoff}) {
      if (duration == null || duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("every interval must be positive");
      }
    }
  }

  /** A builder with the defaults, for {@code home} and the application {@code application}. */
  public static Builder builder(Path home, String application) {
    return new Builder(home, application);
  }

  /** Builds a {@link CommanderConfig}; not thread-safe. */
  public static final class Builder {
    private final Path home;
    private final String application;
    private int workers = 2;
    private Integer maxWorkers;
    private int maxUsersPerWorker = Integer.MAX_VALUE;
    private long workerHeapBytes = 512L * 1024 * 1024;
    private Path appPath;
    private Path appConfig;
    private java.util.List<String> workerJvmOptions = java.util.List.of();
    private WorkerCommand workerCommand;
    private Clock clock = Clock.systemUTC();
    private Duration heartbeat = Duration.ofSeconds(5);
    private Duration presentation = Duration.ofSeconds(10);
    private Duration hold = Duration.ofSeconds(5);
    private Duration callTimeout = Duration.ofMinutes(5);
    private Duration orderTimeout = Duration.ofSeconds(5);
    private int startAttempts = 5;
    private Duration startBackoff = Duration.ofMillis(500);
    private long retryAfterSeconds = 5;
    private Supplier<OptionalLong> memoryAvailable = MachineMemory::available;
    private Consumer<StopMode> onStopRequest = mode -> { };
    private Housekeeping housekeeping = Housekeeping.DEFAULTS;
    private Occupancy occupancy = Occupancy.DEFAULTS;
    private Passivation passivation = Passivation.OFF;
    private Duration checkpoint;
    private boolean placementHeader;
    private LogCaps logCaps = LogCaps.DEFAULTS;

    private Builder(Path home, String application) {
      this.home = Objects.requireNonNull(home, "home");
      this.application = Objects.requireNonNull(application, "application");
    }

    /** Workers started with the run (default 2). */
    public Builder workers(int value) {
      workers = value;
      return this;
    }

    /** The most workers at once (default: 6, or {@code workers} when more). */
    public Builder maxWorkers(int value) {
      maxWorkers = value;
      return this;
    }

    /** The most users on one worker (default: no limit). */
    public Builder maxUsersPerWorker(int value) {
      maxUsersPerWorker = value;
      return this;
    }

    /** Each worker's heap ceiling (default 512 MiB). */
    public Builder workerHeapBytes(long value) {
      workerHeapBytes = value;
      return this;
    }

    /** The application's jar (default: none, the classpath). */
    public Builder appPath(Path value) {
      appPath = value;
      return this;
    }

    /** How a worker JVM starts (default {@link WorkerCommand#defaultJvm()}). */
    public Builder workerCommand(WorkerCommand value) {
      workerCommand = value;
      return this;
    }

    /** The wall clock (default UTC system clock). */
    public Builder clock(Clock value) {
      clock = value;
      return this;
    }

    /** The tick (default 5 s). */
    public Builder heartbeat(Duration value) {
      heartbeat = value;
      return this;
    }

    /** The presentation timeout (default 10 s). */
    public Builder presentation(Duration value) {
      presentation = value;
      return this;
    }

    /** The hold budget of a request (default 5 s). */
    public Builder hold(Duration value) {
      hold = value;
      return this;
    }

    /** The HTTP call timeout (default 5 min). */
    public Builder callTimeout(Duration value) {
      callTimeout = value;
      return this;
    }

    /** The freeze and drop order timeout (default 5 s). */
    public Builder orderTimeout(Duration value) {
      orderTimeout = value;
      return this;
    }

    /** Attempts per worker start (default 5). */
    public Builder startAttempts(int value) {
      startAttempts = value;
      return this;
    }

    /** The first backoff after a failed start (default 500 ms, doubled each time). */
    public Builder startBackoff(Duration value) {
      startBackoff = value;
      return this;
    }

    /** The {@code Retry-After} of the commander's 503s (default 5 s). */
    public Builder retryAfterSeconds(long value) {
      retryAfterSeconds = value;
      return this;
    }

    /** The machine's free memory (default {@code MemAvailable} of {@code /proc/meminfo}). */
    public Builder memoryAvailable(Supplier<OptionalLong> value) {
      memoryAvailable = value;
      return this;
    }

    /** Called once from the tick when a stop request for this run appears (default: nothing). */
    public Builder onStopRequest(Consumer<StopMode> value) {
      onStopRequest = value;
      return this;
    }

    /** The expiry of the frozen and the sweep (default {@link Housekeeping#DEFAULTS}). */
    public Builder housekeeping(Housekeeping value) {
      housekeeping = value;
      return this;
    }

    /** The occupancy check's policy (default {@link Occupancy#DEFAULTS}). */
    public Builder occupancy(Occupancy value) {
      occupancy = value;
      return this;
    }

    /** When workers freeze their idle users (default {@link Passivation#OFF}). */
    public Builder passivation(Passivation value) {
      passivation = Objects.requireNonNull(value, "passivation");
      return this;
    }

    /** How often workers write behind their changed users' state; null is off (default). */
    public Builder checkpoint(Duration value) {
      checkpoint = value;
      return this;
    }

    /** Whether served replies carry {@code Cryo-Placement} (default false). */
    public Builder placementHeader(boolean value) {
      placementHeader = value;
      return this;
    }

    /** The application's configuration file (default: none). */
    public Builder appConfig(Path value) {
      appConfig = value;
      return this;
    }

    /** Options of every worker JVM beyond cryo's own (default: none). */
    public Builder workerJvmOptions(java.util.List<String> value) {
      workerJvmOptions = java.util.List.copyOf(value);
      return this;
    }

    /** How much of its logs the run keeps (default {@link LogCaps#DEFAULTS}). */
    public Builder logCaps(LogCaps value) {
      logCaps = value;
      return this;
    }

    /** The configuration. */
    public CommanderConfig build() {
      int max = maxWorkers != null ? maxWorkers : Math.max(6, workers);
      return new CommanderConfig(home, workers, max, maxUsersPerWorker, workerHeapBytes,
          application, appPath, workerCommand != null ? workerCommand : WorkerCommand.defaultJvm(),
          clock, heartbeat, presentation, hold, callTimeout, orderTimeout, startAttempts,
          startBackoff, retryAfterSeconds, memoryAvailable, onStopRequest, housekeeping,
          occupancy, placementHeader, logCaps, passivation, checkpoint, appConfig,
          workerJvmOptions);
    }
  }
}
