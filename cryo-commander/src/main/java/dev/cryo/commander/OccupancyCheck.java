package dev.cryo.commander;

import dev.cryo.wire.protocol.PhotoMessage;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The occupancy check: workers replaced or closed without a reload. Every
 * {@link Occupancy#checkInterval()} it takes one step, the first that applies:
 *
 * <ol>
 *   <li><b>restart</b> a worker whose heap <em>stays</em> full: its last
 *       {@link Occupancy#fullPhotos()} photos in a row each showed its used heap above
 *       {@link #RESTART_SHARE} of its ceiling (a peak before a collection is one photo, and the
 *       next resets the count). It is replaced as a reload replaces a worker
 *       ({@link Replacement#replace}): a new worker started first, the old one hidden from
 *       placement, its users frozen with their requests held (not refused), then it is quit.
 *   <li><b>close</b> the coldest spare worker ({@link Replacement#shrink}): while more than
 *       {@code --workers} run, a worker that is not the reception, has run at least
 *       {@link Occupancy#minimumAge()}, and whose users fit on the others is quit into the
 *       freezer with no successor; its users wake on their next request where placement picks.
 *       <em>Coldest</em>: the fewest calls served since the previous check (from its photos), then
 *       the fewest users, then the youngest. <em>Fits</em>: the other running workers that admit
 *       (placement's limits: fewer than {@code --max-users-per-worker} users, used heap at most
 *       {@link Placement#MEMORY_ADMISSION} of the ceiling) have together as many free places as it
 *       has users counted against it, and room under their admission share for all of its used
 *       heap (an upper bound of what its users weigh).
 * </ol>
 *
 * The upstream's two middle steps need nothing here: a group is never left without a reception
 * (the heartbeat starts a worker whenever fewer than {@code --workers} live), and placement decides
 * afresh for each request (there is no "saturated" flag to lift). Nothing is done while a drain
 * runs or the commander closes, nor while a reload runs (the step is tried at the next check).
 *
 * <p>Events: {@code occupancy_restart} ({@code worker}, {@code heap_used}, {@code heap_max},
 * {@code full_photos}) before the replacement's own; {@code occupancy_close} ({@code worker},
 * {@code users}, {@code age_ms}, {@code recent_calls}) before the {@code shrunk} of the quit.
 *
 * <p>Threads: {@link #tick} runs on the commander's tick; a step runs on a virtual thread of its
 * own, one at a time (a step takes as long as a worker's quit). {@link #close} may be called from
 * any thread.
 */
final class OccupancyCheck {

  private static final System.Logger LOG = System.getLogger(OccupancyCheck.class.getName());
  /** The share of its heap ceiling above which a photo of a worker counts as full. */
  static final double RESTART_SHARE = 0.95;

  /**
   * One worker as a check sees it.
   *
   * @param name its name
   * @param order its birth order (the reception is the oldest running)
   * @param running whether placement may choose it (running, and no replacement retiring it)
   * @param occupancy the users counted against it
   * @param heapUsedBytes its used heap, from its last photo
   * @param heapMaxBytes its heap ceiling, from its last photo (0 when unknown)
   * @param age how long it has been running
   * @param fullPhotos how many of its photos in a row, up to the last, showed a full heap
   * @param recentCalls calls it served since the previous check; -1 before a second reading
   */
  record Reading(String name, long order, boolean running, int occupancy, long heapUsedBytes,
      long heapMaxBytes, Duration age, int fullPhotos, long recentCalls) {

    WorkerView view() {
      return new WorkerView(name, order, running, occupancy, heapUsedBytes, heapMaxBytes);
    }
  }

  /** What one check decided. */
  sealed interface Step {
    /** Replace {@code worker}, whose heap stays full. */
    record Restart(Reading worker) implements Step {}

    /** Close {@code worker}, a spare whose users fit on the others. */
    record Close(Reading worker) implements Step {}

    /** Nothing to do. */
    record Stay() implements Step {}
  }

  /** Per worker: the last photo read and the count of full ones in a row. */
  private static final class Seen {
    PhotoMessage photo;
    int full;
    long servedAtCheck = -1;
  }

  private final CommanderConfig config;
  private final Routing routing;
  private final Supervisor supervisor;
  private final Placement placement;
  private final Replacement replacement;
  private final Duration grace;
  private final BooleanSupplier mayAct;
  private final Map<String, Seen> seen = new HashMap<>(); // guarded by this
  private long nextCheckNanos; // guarded by this
  private Thread step; // guarded by this
  private boolean closed; // guarded by this

  /**
   * The check of one commander.
   *
   * @param grace how long a quitting worker waits for calls in flight before it cuts them
   * @param mayAct whether a step may be taken now (false during a drain and once closed)
   */
  OccupancyCheck(CommanderConfig config, Routing routing, Supervisor supervisor,
      Placement placement, Replacement replacement, Duration grace, BooleanSupplier mayAct) {
    this.config = config;
    this.routing = routing;
    this.supervisor = supervisor;
    this.placement = placement;
    this.replacement = replacement;
    this.grace = grace;
    this.mayAct = mayAct;
    this.nextCheckNanos = System.nanoTime() + config.occupancy().checkInterval().toNanos();
  }

  /**
   * On the commander's tick: reads the workers' latest photos (counting full ones in a row), and
   * when a check is due and no step is running, decides the check's step and starts it.
   */
  synchronized void tick() {
    observe();
    long now = System.nanoTime();
    if (closed || step != null || now - nextCheckNanos < 0 || !mayAct.getAsBoolean()) {
      return;
    }
    nextCheckNanos = now + config.occupancy().checkInterval().toNanos();
    List<Reading> readings = readings();
    Step chosen = choose(readings, placement, config.workers(), config.maxUsersPerWorker(),
        config.occupancy());
    if (chosen instanceof Step.Stay) {
      return;
    }
    step = Thread.ofVirtual().name("cryo-occupancy").start(() -> {
      try {
        act(chosen);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a step of the occupancy check failed; the next check runs as"
            + " usual: " + e);
      } finally {
        synchronized (this) {
          step = null;
          notifyAll();
        }
      }
    });
  }

  /**
   * Takes no step from now on, and waits, at most {@code bound}, for a step that is running (a
   * drain must not rename the freezer under a worker still quitting into it).
   */
  void close(Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    synchronized (this) {
      closed = true;
      while (step != null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          LOG.log(Level.WARNING, "a step of the occupancy check still runs after " + bound);
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /**
   * The step of a check over {@code readings}: see the class description. Pure.
   *
   * @param workers {@code --workers}: the fewest running workers a close leaves
   * @param maxUsersPerWorker {@code --max-users-per-worker}
   */
  static Step choose(List<Reading> readings, Placement placement, int workers,
      int maxUsersPerWorker, Occupancy policy) {
    Optional<Reading> full = readings.stream()
        .filter(Reading::running)
        .filter(r -> r.fullPhotos() >= policy.fullPhotos())
        .max(Comparator.comparingDouble(r -> (double) r.heapUsedBytes() / r.heapMaxBytes()));
    if (full.isPresent()) {
      return new Step.Restart(full.get());
    }
    List<Reading> running = readings.stream().filter(Reading::running).toList();
    if (running.size() <= workers) {
      return new Step.Stay();
    }
    String reception = placement.reception(readings.stream().map(Reading::view).toList())
        instanceof Verdict.Place place ? place.worker() : null;
    return running.stream()
        .filter(r -> !r.name().equals(reception))
        .filter(r -> r.age().compareTo(policy.minimumAge()) >= 0)
        .filter(r -> r.recentCalls() >= 0)
        .filter(r -> fits(r, running, placement, maxUsersPerWorker))
        .min(Comparator.comparingLong(Reading::recentCalls)
            .thenComparingInt(Reading::occupancy)
            .thenComparing(Comparator.comparingLong(Reading::order).reversed()))
        .<Step>map(Step.Close::new)
        .orElseGet(Step.Stay::new);
  }

  /** Whether the users of {@code candidate} fit on the other running workers that admit. */
  static boolean fits(Reading candidate, List<Reading> running, Placement placement,
      int maxUsersPerWorker) {
    if (candidate.occupancy() == 0) {
      return true;
    }
    long places = 0;
    double headroom = 0;
    boolean unmeasured = false;
    for (Reading other : running) {
      if (other.name().equals(candidate.name()) || !placement.admits(other.view())) {
        continue;
      }
      places += Math.max(0, (long) maxUsersPerWorker - other.occupancy());
      if (other.heapMaxBytes() <= 0) {
        unmeasured = true; // placement admits a worker without a photo: so does the fit
      } else {
        headroom += Placement.MEMORY_ADMISSION * other.heapMaxBytes() - other.heapUsedBytes();
      }
    }
    return places >= candidate.occupancy()
        && (unmeasured || candidate.heapUsedBytes() <= headroom);
  }

  // ------------------------------------------------------------------------------- internals

  /** Reads every running worker's photo once: a new photo extends or ends its run of full ones. */
  private void observe() {
    Map<String, WorkerHandle> alive = new HashMap<>();
    for (WorkerHandle handle : supervisor.workers()) {
      alive.put(handle.name(), handle);
    }
    seen.keySet().retainAll(alive.keySet());
    for (WorkerHandle handle : alive.values()) {
      if (handle.state() != WorkerState.RUNNING) {
        continue;
      }
      PhotoMessage photo = handle.photo();
      Seen mine = seen.computeIfAbsent(handle.name(), name -> new Seen());
      if (photo != null && photo != mine.photo) {
        mine.photo = photo;
        mine.full = isFull(photo) ? mine.full + 1 : 0;
      }
    }
  }

  private static boolean isFull(PhotoMessage photo) {
    return photo.heapMaxBytes() > 0 && photo.heapUsedBytes() > RESTART_SHARE * photo.heapMaxBytes();
  }

  /** The readings of a check; records each worker's served calls for the next one. */
  private List<Reading> readings() {
    Map<String, WorkerHandle> handles = new HashMap<>();
    for (WorkerHandle handle : supervisor.workers()) {
      handles.put(handle.name(), handle);
    }
    Instant now = config.clock().instant();
    List<Reading> readings = new ArrayList<>();
    for (WorkerView view : supervisor.views()) {
      WorkerHandle handle = handles.get(view.name());
      Seen mine = seen.get(view.name());
      if (handle == null || mine == null || mine.photo == null) {
        continue;
      }
      Instant since = handle.runningSince();
      Duration age = since == null ? Duration.ZERO : Duration.between(since, now);
      long served = mine.photo.servedCallCount();
      long recent = mine.servedAtCheck < 0 ? -1 : Math.max(0, served - mine.servedAtCheck);
      mine.servedAtCheck = served;
      readings.add(new Reading(view.name(), view.order(), view.running(), view.occupancy(),
          view.heapUsedBytes(), view.heapMaxBytes(), age, mine.full, recent));
    }
    return readings;
  }

  private void act(Step chosen) {
    switch (chosen) {
      case Step.Restart(Reading worker) -> {
        routing.noteWorker("occupancy_restart", worker.name(), "heap_used",
            worker.heapUsedBytes(), "heap_max", worker.heapMaxBytes(), "full_photos",
            worker.fullPhotos());
        LOG.log(Level.INFO, "worker " + worker.name() + " used more than "
            + Math.round(RESTART_SHARE * 100) + " % of its heap in " + worker.fullPhotos()
            + " photos in a row (" + worker.heapUsedBytes() / (1024 * 1024) + " of "
            + worker.heapMaxBytes() / (1024 * 1024) + " MiB): it is replaced");
        ReloadOutcome outcome = replacement.replace(worker.name(), grace, "heap");
        if (outcome.refusal() != null) { // its photos still count: the next check tries again
          LOG.log(Level.WARNING, "worker " + worker.name() + " was not replaced: "
              + outcome.message());
        }
      }
      case Step.Close(Reading worker) -> {
        routing.noteWorker("occupancy_close", worker.name(), "users", worker.occupancy(), "age_ms",
            worker.age().toMillis(), "recent_calls", worker.recentCalls());
        LOG.log(Level.INFO, "worker " + worker.name() + " is spare (" + worker.occupancy()
            + " users, " + worker.recentCalls() + " calls since the last check, running for "
            + worker.age().toSeconds() + " s): it is closed, its users fit on the others");
        Optional<QuitOutcome> outcome = replacement.shrink(worker.name(), grace, "spare");
        if (outcome.isEmpty()) {
          LOG.log(Level.INFO, "worker " + worker.name() + " was not closed: a replacement of"
              + " workers is running; the next check decides again");
        }
      }
      case Step.Stay stay -> { }
    }
  }
}
