package dev.cryo.commander;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What the quit of one worker into the freezer did ({@link Commander#quitWorker}). When it quit,
 * its users are in the freezer (each wakes on his next request on whichever worker placement
 * picks), save those named {@link #lost()}: their departure failed, or the worker died before it
 * reported; they are gone from every map and must log in again. When it was refused, nothing was
 * changed. Immutable.
 *
 * @param worker the worker
 * @param refusal why nothing was done; null when the worker was quit
 * @param frozen users the worker froze (its report; 0 when it never reported)
 * @param dropped users that had expired and were dropped
 * @param failed users whose departure failed
 * @param cut users frozen while calls of theirs were still in flight past the grace
 * @param lost the users lost with the worker, sorted
 * @param message what happened, for a person
 */
public record QuitOutcome(String worker, Refusal refusal, int frozen, int dropped, int failed,
    int cut, List<String> lost, String message) {

  /** Why a quit was refused. */
  public enum Refusal {
    /** No worker of that name is running (it is starting, quitting already, or dead). */
    NOT_RUNNING,
    /** Another change of workers (a reload, a replacement, a shrink, a quit) or a drain runs. */
    BUSY,
    /** The commander is closing. */
    CLOSED;

    /** The refusal in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the parts. */
  public QuitOutcome {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(message, "message");
    lost = List.copyOf(lost);
  }

  /** Whether the worker was quit (its process has ended; see {@link #lost()} for who did not follow). */
  public boolean quit() {
    return refusal == null;
  }

  static QuitOutcome refused(String worker, Refusal refusal, String message) {
    return new QuitOutcome(worker, refusal, 0, 0, 0, 0, List.of(), message);
  }
}
