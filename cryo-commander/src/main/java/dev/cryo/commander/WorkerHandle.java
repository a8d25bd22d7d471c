package dev.cryo.commander;

import dev.cryo.wire.Wire;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.SpawnPayload;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The commander's state machine of one worker: {@link WorkerState#STARTING} →
 * {@link WorkerState#RUNNING} (presented) → {@link WorkerState#QUITTING} → {@link WorkerState#DEAD},
 * any state → DEAD, nothing out of DEAD. It also keeps what the commander knows of the worker: its
 * spawn payload, process, wire, presentation, last photo and when it was last heard from.
 * Thread-safe: transitions are atomic under the handle's lock; readers see a consistent state.
 */
final class WorkerHandle {

  private final String name;
  private final SpawnPayload spawn;
  private final Instant spawnedAt;
  private final CompletableFuture<WorkerHandle> presented = new CompletableFuture<>();
  private WorkerState state = WorkerState.STARTING;
  private WorkerProcess process;
  private Wire wire;
  private Presentation presentation;
  /** Whether the current attempt was given up: a presentation after that is refused. */
  private boolean attemptEnded; // guarded by this
  /** The number of the current attempt (0 before the first): a presentation names its own. */
  private int attempts; // guarded by this
  private PhotoMessage photo;
  private String photoAfter; // guarded by this: the next ping's page begins after it
  private long order = Long.MAX_VALUE;
  private Instant runningSince;
  private String deathReason;
  private volatile long lastHeardNanos = System.nanoTime();
  private boolean pinging; // guarded by this
  /** Whether a ping handed to the wire is still unanswered (a later answer clears it). */
  private boolean unanswered; // guarded by this
  /** When the oldest ping still unanswered was claimed (System.nanoTime), while unanswered. */
  private long unansweredSince; // guarded by this
  /** Whether the ping in flight is the one that began the unanswered stretch. */
  private boolean pingBeganStretch; // guarded by this

  WorkerHandle(SpawnPayload spawn, Instant spawnedAt) {
    this.spawn = Objects.requireNonNull(spawn, "spawn");
    this.name = spawn.name();
    this.spawnedAt = Objects.requireNonNull(spawnedAt, "spawnedAt");
  }

  String name() {
    return name;
  }

  SpawnPayload spawn() {
    return spawn;
  }

  Instant spawnedAt() {
    return spawnedAt;
  }

  synchronized WorkerState state() {
    return state;
  }

  synchronized boolean isRunning() {
    return state == WorkerState.RUNNING;
  }

  /** Completes with this handle when the worker presented itself; fails when its start was abandoned. */
  CompletableFuture<WorkerHandle> presented() {
    return presented;
  }

  /** A new attempt's process and wire (the previous attempt's were killed). */
  synchronized void attempt(WorkerProcess newProcess) {
    if (state != WorkerState.STARTING) {
      throw new IllegalStateException("worker " + name + " is " + state.code() + ", not starting");
    }
    process = newProcess;
    wire = null;
    attemptEnded = false;
    attempts++;
  }

  /**
   * The number of the current attempt, 1 for the first ({@link #attempt}); 0 before any. A wire's
   * link takes it when it is made, so a presentation that a given-up attempt's wire delivers late
   * is refused even once the next attempt has begun.
   */
  synchronized int attemptNumber() {
    return attempts;
  }

  /**
   * Gives the current attempt up, unless the worker presented itself meanwhile: a presentation
   * that arrives after this is refused, so a timed-out attempt never turns RUNNING under a process
   * that is being killed.
   *
   * @return true when the worker had presented itself (the attempt succeeded after all)
   */
  synchronized boolean endAttempt() {
    if (presentation != null) {
      return true;
    }
    attemptEnded = true;
    return false;
  }

  synchronized void attach(Wire newWire) {
    wire = newWire;
  }

  synchronized WorkerProcess process() {
    return process;
  }

  synchronized Wire wire() {
    return wire;
  }

  /**
   * STARTING → RUNNING with {@code presentation}, as the {@code order}-th worker presented in the
   * run (the oldest running is the reception).
   *
   * @param attempt the number of the attempt whose wire delivered it ({@link #attemptNumber})
   * @return false when the worker is not starting, or {@code attempt} is not the current attempt
   *     or was given up (the presentation is refused)
   */
  synchronized boolean present(Presentation presentation, int attempt, long order, Instant now) {
    if (state != WorkerState.STARTING || this.presentation != null || attemptEnded
        || attempt != attempts) {
      return false;
    }
    this.presentation = presentation;
    this.photo = presentation.photo();
    this.order = order;
    this.runningSince = now;
    state = WorkerState.RUNNING;
    heard();
    return true;
  }

  /** Completes {@link #presented()}; called once the presentation's reply is on its way. */
  void announcePresented() {
    presented.complete(this);
  }

  /** Fails {@link #presented()}: the start was abandoned. */
  void abandon(Throwable why) {
    presented.completeExceptionally(why);
  }

  /** RUNNING → QUITTING; false from any other state. */
  synchronized boolean quitting() {
    if (state != WorkerState.RUNNING) {
      return false;
    }
    state = WorkerState.QUITTING;
    return true;
  }

  /**
   * Any state → DEAD, once.
   *
   * @return whether this call made it dead (false: it was already)
   */
  synchronized boolean die(String reason) {
    if (state == WorkerState.DEAD) {
      return false;
    }
    state = WorkerState.DEAD;
    deathReason = reason;
    return true;
  }

  synchronized String deathReason() {
    return deathReason;
  }

  synchronized Presentation presentation() {
    return presentation;
  }

  synchronized PhotoMessage photo() {
    return photo;
  }

  /**
   * Keeps {@code newPhoto} as the worker's latest, and where the next ping's page begins: after
   * its last user, or with the first once it reached the last ({@link #nextPhotoAfter}).
   */
  synchronized void photo(PhotoMessage newPhoto) {
    photo = newPhoto;
    photoAfter = newPhoto.usersThrough();
    heard();
  }

  /** The name the next ping's page of users begins after; null for the first page. */
  synchronized String nextPhotoAfter() {
    return photoAfter;
  }

  /** The application's move routes, each {@code [METHOD, PATH]}, from the presentation. */
  synchronized List<List<String>> moveRoutes() {
    return presentation == null ? List.of() : presentation.moveRoutes();
  }

  /** The URL prefixes of the application's static files, from the presentation. */
  synchronized List<String> staticPrefixes() {
    return presentation == null ? List.of() : presentation.staticPrefixes();
  }

  synchronized long order() {
    return order;
  }

  synchronized Instant runningSince() {
    return runningSince;
  }

  /** The worker's pid: from its presentation, else from its process; 0 before either. */
  synchronized long pid() {
    if (presentation != null) {
      return presentation.pid();
    }
    return process == null ? 0 : process.pid();
  }

  /** Something came from the worker: a frame, a reply. */
  void heard() {
    lastHeardNanos = System.nanoTime();
  }

  /** Nanoseconds since the worker was last heard from. */
  long silentNanos() {
    return System.nanoTime() - lastHeardNanos;
  }

  /**
   * Claims the heartbeat's ping slot; false when a ping is in flight already. From this claim on
   * the ping counts as unanswered ({@link #unansweredNanos}) until {@link #pingAnswered}, unless
   * it was never sent ({@link #pingNotSent}).
   */
  synchronized boolean startPing() {
    if (pinging) {
      return false;
    }
    pinging = true;
    pingBeganStretch = !unanswered;
    if (!unanswered) {
      unanswered = true;
      unansweredSince = System.nanoTime();
    }
    return true;
  }

  /**
   * The ping in flight was answered (a reply, or an error reply): the worker reads its wire, and
   * it is heard ({@link #heard}). Any answer on the wire proves the worker alive: one that answers
   * with an error (its photo would not fit a frame, its handler failed) is busy or broken in a
   * part, never silent.
   */
  synchronized void pingAnswered() {
    pinging = false;
    unanswered = false;
    heard();
  }

  /** The ping in flight got no answer (it timed out, or the wire ended): its time still counts. */
  synchronized void pingUnanswered() {
    pinging = false;
  }

  /** The ping in flight was never sent (this side refused it): it counts for nothing. */
  synchronized void pingNotSent() {
    pinging = false;
    if (pingBeganStretch) {
      unanswered = false;
    }
  }

  /**
   * Nanoseconds since the oldest ping still unanswered was claimed; 0 when every ping sent was
   * answered. Frames of the worker's own do not reset it: only an answer to a ping does.
   */
  synchronized long unansweredNanos() {
    return unanswered ? System.nanoTime() - unansweredSince : 0;
  }

  /** What placement knows of this worker, with {@code occupancy} users counted against it. */
  synchronized WorkerView view(int occupancy) {
    return new WorkerView(name, order, state == WorkerState.RUNNING, occupancy,
        photo == null ? 0 : photo.heapUsedBytes(), photo == null ? 0 : photo.heapMaxBytes());
  }

  @Override
  public synchronized String toString() {
    return "worker " + name + " (" + state.code() + ")";
  }
}
