package dev.cryo.app;

/**
 * What a move route's handler receives ({@link Routes#move}): the runtime performed the move before
 * the request reached the application — the user was frozen on {@code from} and woken on
 * {@code to}, where the handler now runs — or could not, for {@code refused}, and the handler runs
 * where the user was.
 *
 * @param from the worker the user was on
 * @param to the worker serving him now; null when refused
 * @param refused why no move happened (a machine-readable reason, e.g. {@code no_other_worker}),
 *     or null when he moved
 */
public record Move(String from, String to, String refused) {

  /** The reason given when nobody performed the move (a host that moves nobody). */
  public static final String NOT_PERFORMED = "not_performed";

  /** A move that happened. */
  public static Move moved(String from, String to) {
    return new Move(from, to, null);
  }

  /** A move that was refused. */
  public static Move refused(String from, String reason) {
    return new Move(from, null, reason == null ? NOT_PERFORMED : reason);
  }

  /** Whether the user moved. */
  public boolean isMoved() {
    return refused == null;
  }
}
