package dev.cryo.commander;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The run's phase, and the one place every operation that changes its workers asks first. The
 * phases, in the order a run goes through them:
 *
 * <pre>
 *   STARTING ──► SERVING ◄──► RELOADING  (a reload; the replacement of a worker whose heap stays full)
 *      │            │    ◄──► SHRINKING  (the close of a spare worker; the quit of one worker)
 *      │            ├──► DRAINING ──► STOPPING ──► CLOSED
 *      │            ◄──────┘ (a drain refused: a user could not be written)
 *      └────────────┴───────────────► STOPPING ──► CLOSED   (a stop now, a start given up)
 * </pre>
 *
 * <ul>
 *   <li>{@link #served} ends the start: {@code STARTING → SERVING}.
 *   <li>{@link #beginChange} begins a change of workers ({@link Change}): only from
 *       {@code SERVING}, one at a time; any other phase refuses it with a sentence saying what runs
 *       and what to do. {@link #endChange} ends it: back to {@code SERVING}, or on to
 *       {@code DRAINING} when a drain asked meanwhile.
 *   <li>{@link #beginDrain} begins a drain from {@code SERVING} at once; during a change it stops
 *       admitting at once, asks the change to stop after its current worker
 *       ({@link #drainWaiting}), and waits for its end (the worker being replaced is then quit and
 *       its users frozen: the drain carries them). It is refused once a drain began or the run
 *       stops.
 *   <li>{@link #drainRefused} ends a drain that could not write every user and quit no worker:
 *       {@code DRAINING → SERVING}, admitting again; a new drain may be asked.
 *   <li>{@link #beginStop} begins a stop (a stop now, the end of a drain, a start given up) from
 *       any phase but {@code STOPPING} and {@code CLOSED}, and says which phase it stopped;
 *       {@link #closed} ends it.
 * </ul>
 *
 * <p>The run admits requests ({@link #admits}) while it serves, reloads or shrinks, and from the
 * moment a drain asked, no more.
 *
 * <p>Thread-safe: every method may be called from any thread; {@link #beginDrain} blocks its caller
 * while a change ends, every other method returns at once.
 */
final class Lifecycle {

  /** A phase of the run. */
  enum Phase {
    /** {@code Commander.start}: adopting the earlier run, starting the first workers. */
    STARTING,
    /** Serving requests; no change of workers runs. */
    SERVING,
    /** A rolling reload, or the replacement of one worker, runs. */
    RELOADING,
    /** A worker is closed with no successor (a spare worker, or one the operator quits). */
    SHRINKING,
    /** A drain runs: nothing new is admitted, every worker quits into the freezer. */
    DRAINING,
    /** The run is being stopped: its workers killed, its files closed. */
    STOPPING,
    /** The run ended. */
    CLOSED;

    /** The phase in {@code snake_case}. */
    String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A change of workers, and the phase it runs in. */
  enum Change {
    /** A rolling reload ({@code cryo reload}). */
    RELOAD(Phase.RELOADING, "a reload"),
    /** The replacement of one worker (the occupancy check: its heap stayed full). */
    REPLACE(Phase.RELOADING, "the replacement of a worker"),
    /** The close of a spare worker (the occupancy check). */
    SHRINK(Phase.SHRINKING, "the close of a spare worker"),
    /** The quit of one worker the operator asked for. */
    QUIT(Phase.SHRINKING, "the quit of a worker");

    private final Phase phase;
    private final String noun;

    Change(Phase phase, String noun) {
      this.phase = phase;
      this.noun = noun;
    }

    /** The phase the run is in while this change runs. */
    Phase phase() {
      return phase;
    }
  }

  private Phase phase = Phase.STARTING; // guarded by this
  private Change change; // guarded by this: the change running, in RELOADING or SHRINKING
  private boolean drainAsked; // guarded by this: a drain waits for the change to end

  /** The phase now. */
  synchronized Phase phase() {
    return phase;
  }

  /** Whether the run admits requests: serving or changing workers, and no drain asked. */
  synchronized boolean admits() {
    return !drainAsked && (phase == Phase.SERVING || phase == Phase.RELOADING
        || phase == Phase.SHRINKING);
  }

  /** Whether the run is stopping or closed (a stop now came: nothing may be committed). */
  synchronized boolean stopped() {
    return phase == Phase.STOPPING || phase == Phase.CLOSED;
  }

  /**
   * Ends the start: {@code STARTING → SERVING}.
   *
   * @throws IllegalStateException when the run is not starting (it was stopped meanwhile)
   */
  synchronized void served() {
    if (phase != Phase.STARTING) {
      throw new IllegalStateException("the run is " + phase.code() + ", not starting; it does not"
          + " serve");
    }
    phase = Phase.SERVING;
  }

  /**
   * Begins {@code what}: only from {@code SERVING}.
   *
   * @return empty when it began (the caller must call {@link #endChange} once it ends); else why
   *     it may not, a sentence that says what runs and that nothing was changed
   */
  synchronized Optional<String> beginChange(Change what) {
    if (phase == Phase.SERVING && !drainAsked) {
      phase = what.phase();
      change = what;
      return Optional.empty();
    }
    return Optional.of(refusal(what));
  }

  /** Why {@code what} may not begin now, or empty when it may. Changes nothing. */
  synchronized Optional<String> wouldRefuse(Change what) {
    return phase == Phase.SERVING && !drainAsked ? Optional.empty() : Optional.of(refusal(what));
  }

  private String refusal(Change what) {
    String running = phase == Phase.STOPPING || phase == Phase.CLOSED ? "the run is " + phase.code()
        : drainAsked || phase == Phase.DRAINING ? "the run drains"
        : change != null ? capitalized(change.noun) + " is running"
        : "the run is " + phase.code();
    return capitalized(running) + ": " + what.noun + " does not begin; nothing was changed"
        + (drainAsked || phase == Phase.DRAINING || phase == Phase.STOPPING
            || phase == Phase.CLOSED ? "" : ": ask again once it ended");
  }

  private static String capitalized(String text) {
    return Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  /**
   * Whether the change running should stop before its next worker: a drain asked, or the run
   * stops. A change asks before each worker it begins to replace or quit.
   */
  synchronized boolean drainWaiting() {
    return drainAsked || phase == Phase.STOPPING || phase == Phase.CLOSED;
  }

  /** Ends the change {@code what} began by {@link #beginChange}: back to {@code SERVING}. */
  synchronized void endChange(Change what) {
    if (change != what) {
      return; // stopped meanwhile: the stop owns the phase
    }
    change = null;
    if (phase == what.phase()) {
      phase = Phase.SERVING;
    }
    notifyAll();
  }

  /**
   * Begins a drain. From {@code SERVING}: at once. During a change: stops admitting at once, says
   * {@code "<the change> is running: the drain will follow it"} to {@code waiting}, and waits until
   * the change ended (it stops before its next worker, see {@link #drainWaiting}; the worker it
   * is quitting ends its quit, its users frozen).
   *
   * @throws IllegalStateException when a drain began already, or the run is starting, stopping or
   *     closed (nothing was changed)
   * @throws InterruptedException when interrupted while waiting (no drain began; the run no longer
   *     admits, and a stop should follow)
   */
  synchronized void beginDrain(java.util.function.Consumer<String> waiting)
      throws InterruptedException {
    if (drainAsked || phase == Phase.DRAINING || phase == Phase.STARTING || phase == Phase.STOPPING
        || phase == Phase.CLOSED) {
      throw new IllegalStateException("the run is " + (drainAsked ? "draining" : phase.code())
          + (drainAsked || phase == Phase.DRAINING ? " already" : "") + "; it is not drained"
          + (phase == Phase.STARTING ? " before it serves" : " again"));
    }
    drainAsked = true;
    if (change != null) {
      waiting.accept("cryo: " + change.noun + " is running: the drain will follow it");
    }
    while (change != null && phase != Phase.STOPPING && phase != Phase.CLOSED) {
      TimeUnit.MILLISECONDS.timedWait(this, 1000);
    }
    if (phase == Phase.STOPPING || phase == Phase.CLOSED) {
      throw new IllegalStateException("the run was stopped at once while the drain waited; it is"
          + " not drained");
    }
    phase = Phase.DRAINING;
  }

  /**
   * Ends a drain that was refused (a user could not be written; no worker was quit):
   * {@code DRAINING → SERVING}, admitting again, and a new drain may begin.
   *
   * @return false when the run is not draining (a stop now came meanwhile: the stop owns the phase)
   */
  synchronized boolean drainRefused() {
    if (phase != Phase.DRAINING) {
      return false;
    }
    drainAsked = false;
    phase = Phase.SERVING;
    notifyAll();
    return true;
  }

  /**
   * Begins a stop from any phase before {@code STOPPING}.
   *
   * @return the phase it stopped, or empty when the run is stopping or closed already
   */
  synchronized Optional<Phase> beginStop() {
    if (phase == Phase.STOPPING || phase == Phase.CLOSED) {
      return Optional.empty();
    }
    Phase was = phase;
    phase = Phase.STOPPING;
    change = null;
    notifyAll();
    return Optional.of(was);
  }

  /** Ends the stop: {@code CLOSED}. */
  synchronized void closed() {
    phase = Phase.CLOSED;
    notifyAll();
  }
}
