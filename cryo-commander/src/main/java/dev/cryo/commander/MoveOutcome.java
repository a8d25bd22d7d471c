package dev.cryo.commander;

import java.util.Locale;
import java.util.Objects;

/**
 * What a move did ({@link Commander#move}): the user was frozen on {@code from} and his next
 * request goes to {@code to}, or he was not moved ({@link #refusal()} says why, and he stays where
 * he was). Immutable.
 *
 * <p>A move is {@linkplain #moved() done} exactly when the fold of the user's {@code user_frozen}
 * released the move's hold ({@link Hold.Ending.Froze}); that fold wrote the move's one {@code move}
 * event, so the outcome and the event log agree (see {@link Mover}, "The verdict").
 *
 * @param user the user
 * @param from the worker he lived on (null when he lived on none)
 * @param to the worker his next request goes to; null when refused
 * @param refusal why he was not moved; null when he was
 * @param message what happened, for a person
 */
public record MoveOutcome(String user, String from, String to, Refusal refusal, String message) {

  /** Why a move was refused. */
  public enum Refusal {
    /** He lives on no worker (unknown, lost, or in the freezer already: his next request wakes him). */
    NOT_RESIDENT,
    /** No other worker admits him and no new one may start. */
    NO_OTHER_WORKER,
    /** He is held by another operation (a freeze, a move) already. */
    HELD,
    /** His worker could not freeze him (disk refused, calls stuck); he stays alive there. */
    FREEZE_FAILED,
    /** His worker did not hold him (any more). */
    NOT_HERE,
    /** The commander is not running. */
    NOT_RUNNING;

    /** The refusal in {@code snake_case}, as the move route's {@code refused} carries it. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the parts. */
  public MoveOutcome {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(message, "message");
    if ((refusal == null) == (to == null)) {
      throw new IllegalArgumentException("a move names its destination exactly when it happened");
    }
  }

  /** Whether he was moved. */
  public boolean moved() {
    return refusal == null;
  }

  static MoveOutcome moved(String user, String from, String to) {
    return new MoveOutcome(user, from, to, null, "'" + user + "' was frozen on " + from
        + "; his next request wakes him on " + to);
  }

  static MoveOutcome refused(String user, String from, Refusal refusal, String message) {
    return new MoveOutcome(user, from, null, refusal, message);
  }
}
