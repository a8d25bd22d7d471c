package dev.cryo.commander;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.commander.Verdict.AwaitStart;
import dev.cryo.commander.Verdict.Grow;
import dev.cryo.commander.Verdict.Place;
import dev.cryo.commander.Verdict.Saturated;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Where a request goes, and where a moved user may go. Pure: it decides from what it is given (the
 * workers as {@link WorkerView}s, the user's {@link Location}) and the machine's free memory; it
 * changes nothing. Thread-safe.
 *
 * <ul>
 *   <li>A user living on a worker goes to it; a frozen user whose requests are bound for a running
 *       worker goes there.
 *   <li>A new user — an unknown connection, or a guest not living on a worker — goes to the
 *       oldest running worker that {@linkplain #admits admits} him (the <em>reception</em> while it
 *       admits), else on the frozen user's path below. The cap applies to him as to anybody: a
 *       new user is never placed on a worker past it.
 *   <li>Otherwise the fullest worker that admits him: running, fewer than
 *       {@code maxUsersPerWorker} users counted against it, and its used heap at most
 *       {@link #MEMORY_ADMISSION} of its ceiling (from its photo; a worker without a photo admits).
 *       Ties go to the oldest.
 *   <li>Otherwise a new worker ({@link Grow}) while fewer than {@code maxWorkers} are alive or
 *       starting and the machine's free memory holds one more heap ceiling; when no more may start
 *       but one is starting, {@link AwaitStart}; otherwise {@link Saturated}.
 * </ul>
 */
public final class Placement {

  /** The share of its heap ceiling a worker may use and still admit a user. */
  public static final double MEMORY_ADMISSION = 0.80;

  private final int maxUsersPerWorker;
  private final int maxWorkers;
  private final long workerHeapBytes;
  private final Supplier<OptionalLong> memoryAvailable;

  /**
   * A placement policy.
   *
   * @param maxUsersPerWorker the most users counted against one worker
   * @param maxWorkers the most workers alive or starting at once
   * @param workerHeapBytes the heap ceiling of a new worker: the free memory a new one needs
   * @param memoryAvailable the machine's free memory (empty when unknown: growth is then allowed)
   */
  public Placement(int maxUsersPerWorker, int maxWorkers, long workerHeapBytes,
      Supplier<OptionalLong> memoryAvailable) {
    if (maxUsersPerWorker < 1 || maxWorkers < 1 || workerHeapBytes < 1) {
      throw new IllegalArgumentException("maxUsersPerWorker, maxWorkers and workerHeapBytes must be"
          + " positive, got " + maxUsersPerWorker + ", " + maxWorkers + ", " + workerHeapBytes);
    }
    this.maxUsersPerWorker = maxUsersPerWorker;
    this.maxWorkers = maxWorkers;
    this.workerHeapBytes = workerHeapBytes;
    this.memoryAvailable = Objects.requireNonNull(memoryAvailable, "memoryAvailable");
  }

  /**
   * Where a request of {@code user} goes.
   *
   * @param user the connection's user, or null for an unknown connection (anonymous)
   * @param location where the maps say he lives
   * @param workers every worker not dead
   * @param starting how many workers are starting (spawned, not presented yet)
   */
  public Verdict forRequest(String user, Location location, List<WorkerView> workers,
      int starting) {
    if (user == null) {
      return forNewUser(workers, starting);
    }
    if (location instanceof OnWorker on) {
      Optional<WorkerView> home = named(workers, on.worker());
      if (home.isPresent()) {
        return new Place(on.worker());
      }
      return reception(workers); // a worker the views no longer show: its death is being folded
    }
    if (location instanceof Frozen frozen && frozen.destination() != null
        && named(workers, frozen.destination()).filter(WorkerView::running).isPresent()) {
      return new Place(frozen.destination());
    }
    if (isGuest(user) || !(location instanceof Frozen)) {
      return forNewUser(workers, starting);
    }
    return fullest(null, workers, starting);
  }

  /**
   * Where a new user goes (an unknown connection, or a guest not living on a worker): the oldest
   * running worker that admits him, else a new worker ({@link Grow}) while one may start, else
   * {@link AwaitStart} while one is starting, else {@link Saturated}. The caller counts the user
   * against the worker chosen in the same step as this decision, so that two decisions never admit
   * past the cap together (the dispatcher does both under its placement lock).
   *
   * @param workers every worker not dead, their occupancy counting the births in flight
   * @param starting how many workers are starting
   */
  public Verdict forNewUser(List<WorkerView> workers, int starting) {
    return workers.stream().filter(this::admits)
        .min(Comparator.comparingLong(WorkerView::order))
        .<Verdict>map(view -> new Place(view.name()))
        .orElseGet(() -> fullest(null, workers, starting));
  }

  /**
   * Where a user living on {@code source} may be moved: the fullest other worker that admits him,
   * else a new worker, else saturated.
   */
  public Verdict elsewhere(String source, List<WorkerView> workers, int starting) {
    return fullest(source, workers, starting);
  }

  /** The reception: the oldest running worker, or saturated when none runs. */
  public Verdict reception(List<WorkerView> workers) {
    return workers.stream().filter(WorkerView::running)
        .min(Comparator.comparingLong(WorkerView::order))
        .<Verdict>map(view -> new Place(view.name()))
        .orElseGet(() -> new Saturated("no worker is running to receive new connections (the"
            + " reception is starting or being replaced)"));
  }

  /** Whether {@code view} admits one more user. */
  public boolean admits(WorkerView view) {
    if (!view.running() || view.occupancy() >= maxUsersPerWorker) {
      return false;
    }
    return view.heapMaxBytes() <= 0
        || view.heapUsedBytes() <= MEMORY_ADMISSION * view.heapMaxBytes();
  }

  /** Whether one more worker may start now, besides the {@code alive} ones. */
  public boolean mayGrow(int alive) {
    if (alive >= maxWorkers) {
      return false;
    }
    OptionalLong free = memoryAvailable.get();
    return free.isEmpty() || free.getAsLong() >= workerHeapBytes;
  }

  /** Whether {@code user} is a guest (the worker names guests {@code guest_<connection>}). */
  public static boolean isGuest(String user) {
    return user.startsWith("guest_");
  }

  private Verdict fullest(String excluded, List<WorkerView> workers, int starting) {
    Optional<WorkerView> best = workers.stream()
        .filter(view -> !view.name().equals(excluded))
        .filter(this::admits)
        .max(Comparator.comparingInt(WorkerView::occupancy)
            .thenComparing(Comparator.comparingLong(WorkerView::order).reversed()));
    if (best.isPresent()) {
      return new Place(best.get().name());
    }
    int alive = workers.size() + starting;
    if (mayGrow(alive)) {
      return new Grow();
    }
    if (starting > 0) {
      return new AwaitStart();
    }
    OptionalLong free = memoryAvailable.get();
    String why = alive >= maxWorkers ? alive + " workers run, the most allowed (--max-workers "
        + maxWorkers + ")" : "the machine has " + free.orElse(0) / (1024 * 1024) + " MiB free, less"
        + " than a worker's heap ceiling of " + workerHeapBytes / (1024 * 1024) + " MiB";
    return new Saturated("no " + (excluded == null ? "" : "other ") + "worker admits him (each"
        + " has " + maxUsersPerWorker + " users (--max-users-per-worker) or uses more than "
        + Math.round(MEMORY_ADMISSION * 100) + " % of its heap) and no new one may start: " + why);
  }

  private static Optional<WorkerView> named(List<WorkerView> workers, String name) {
    return workers.stream().filter(view -> view.name().equals(name)).findFirst();
  }
}
