package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * The commander's leave to a worker to serve one user, fenced by his <em>generation</em>: the
 * token that makes "a user is live in at most one worker" hold by construction.
 *
 * <p>Every placement of a user — his birth, his wake from the freezer, a login into an identity
 * nobody holds, the target of a move — is given a generation by the commander, greater than every
 * generation it gave before (to anybody: one counter for the run, kept across its restarts, as a
 * store's revision is). A worker serves a user at the one generation it holds him at; it creates
 * him only from a {@link Kind#BIRTH} or a {@link Kind#WAKE} grant, and it refuses, retryable, any
 * grant of another generation: a call decided on a stale reading of the maps reaches a worker
 * that no longer holds him, or holds him at a newer generation, and is routed again — it never
 * makes a second copy. Every parcel carries the generation of the stay that wrote it; a wake reads
 * only a parcel at least as new as {@link #parcelGeneration}, so an older one is residue, never
 * the user.
 *
 * <p>Generation 0 is the worker alone's (tests, a worker with no commander): the commander's
 * generations start at 1. Immutable.
 *
 * @param kind how the user comes to be served
 * @param generation the generation the worker serves him at
 * @param parcelGeneration for a {@link Kind#WAKE}, the generation of the stay that froze him (the
 *     oldest parcel the wake may read); 0 otherwise
 */
public record Grant(Kind kind, long generation, long parcelGeneration) {

  /** How a grant lets the user be served. */
  public enum Kind {
    /** He lives on the worker at {@code generation}: serve him only if he is there at it. */
    LIVE,
    /** He is new: create him at {@code generation} unless he is there at it already. */
    BIRTH,
    /** He is in the freezer: wake him at {@code generation} unless he is there at it already. */
    WAKE
  }

  /** The birth grant of a worker alone (generation 0). */
  public static final Grant ALONE = new Grant(Kind.BIRTH, 0, 0);

  /**
   * The field of a user parcel (the freezer's plain tree) holding the generation of the stay that
   * wrote it: written by the worker, read by a wake and by a start adopting a killed run's users.
   */
  public static final String PARCEL_FIELD = "generation";

  /**
   * The generation a user parcel was written at: its {@link #PARCEL_FIELD}, 0 when absent or not a
   * whole number (a worker alone, or a version before generations).
   */
  public static long generationOf(java.util.Map<?, ?> parcel) {
    return parcel.get(PARCEL_FIELD) instanceof Number number
        && (number instanceof Integer || number instanceof Long) ? number.longValue() : 0;
  }

  /** Checks the parts. */
  public Grant {
    Objects.requireNonNull(kind, "kind");
    if (generation < 0 || parcelGeneration < 0) {
      throw new IllegalArgumentException("a grant's generations are 0 or more, got " + generation
          + " and " + parcelGeneration);
    }
    if (kind != Kind.WAKE && parcelGeneration != 0) {
      throw new IllegalArgumentException("only a wake names a parcel generation, got " + kind
          + " with " + parcelGeneration);
    }
  }

  /** Serve the user living on the worker at {@code generation}. */
  public static Grant live(long generation) {
    return new Grant(Kind.LIVE, generation, 0);
  }

  /** Create the user at {@code generation}. */
  public static Grant birth(long generation) {
    return new Grant(Kind.BIRTH, generation, 0);
  }

  /** Wake the user at {@code generation} from a parcel of {@code parcelGeneration} or newer. */
  public static Grant wake(long generation, long parcelGeneration) {
    return new Grant(Kind.WAKE, generation, parcelGeneration);
  }

  /** Whether this grant lets a worker that does not hold the user make him. */
  public boolean creates() {
    return kind != Kind.LIVE;
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + "@" + generation
        + (kind == Kind.WAKE ? " (parcel " + parcelGeneration + "+)" : "");
  }
}
