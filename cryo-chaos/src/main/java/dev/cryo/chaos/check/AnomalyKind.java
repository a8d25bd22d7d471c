package dev.cryo.chaos.check;

/** What the checker can find wrong in a run; any one of them makes the verdict invalid. */
public enum AnomalyKind {
  /**
   * An acknowledged write missing later with no documented loss in between: a final value below
   * an acked increment, a count of increments not reflected, a virtual user whose identity was
   * forgotten, a page's note missing, a page refused as unknown after it took writes.
   */
  LOST_WRITE,
  /**
   * Two acked increments of one register in one epoch that returned the same value, or an
   * increment that returned no more than a value seen before it was invoked: two live copies of
   * one user (or page) served writes.
   */
  TWO_LIVE_COPIES,
  /** A read (not the last of its epoch) lower than a value acked before it was invoked. */
  TIME_TRAVEL,
  /** A refused or unknown outcome outside every fault window and not a documented refusal. */
  UNEXPLAINED_FAILURE,
  /** One placement (user, generation) whose replies name two different serving workers. */
  PLACEMENT_SERVED_TWICE
}
