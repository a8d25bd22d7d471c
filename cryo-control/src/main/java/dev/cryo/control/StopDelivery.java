package dev.cryo.control;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RunDirectory#requestStop} did. Immutable.
 *
 * @param outcome what happened, machine-readable
 * @param mode the mode published, or the mode a server reads from the request already there
 * @param invocationId the invocation the request was bound to ({@code run.json}'s when published)
 * @param message the delivery in one line: what happened, what was kept, what to do next
 * @param existing the request already there, when nothing was written
 * @param serverEnded whether that invocation had already ended ({@code now} can no longer signal)
 */
public record StopDelivery(Outcome outcome, StopMode mode, String invocationId, String message,
    Optional<StopReading> existing, boolean serverEnded) {

  /** What a publication did. */
  public enum Outcome {
    /** This call published the request and the run it is bound to is still current. */
    WRITTEN,
    /** Nothing written: this run's own request is already there (its mode is reported). */
    ALREADY_THERE,
    /** Nothing written: an earlier run's request is there; the server removes it at its next tick. */
    EARLIER_RUN,
    /** Nothing written: a request that does not parse is there; every reader takes it as a drain. */
    UNPARSEABLE,
    /**
     * Written, but {@code run.json} named another invocation (or none) right after: no live server
     * of the request's invocation reads it. "server changed; stop not delivered".
     */
    SERVER_CHANGED;

    /** The outcome in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the fields. */
  public StopDelivery {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(existing, "existing");
  }

  /** Whether this call wrote a request. */
  public boolean written() {
    return outcome == Outcome.WRITTEN || outcome == Outcome.SERVER_CHANGED;
  }
}
