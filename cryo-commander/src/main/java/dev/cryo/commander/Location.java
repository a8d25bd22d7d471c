package dev.cryo.commander;

/**
 * Where the routing maps say a user lives: on a worker, in the freezer, or nowhere they know.
 * Immutable values.
 */
public sealed interface Location {

  /** The maps know nothing of him. */
  Location UNKNOWN = new Unknown();

  /** He lives in the memory of {@code worker}. */
  record OnWorker(String worker) implements Location {}

  /**
   * He is in the freezer (a {@code user_frozen} named him). {@code destination} is
   * the worker his next request goes to when one was already chosen (a move, or the first request of
   * a burst), else null.
   */
  record Frozen(String destination) implements Location {}

  /** The maps know nothing of him: a guest yet to be born, a lost user, a dropped one. */
  record Unknown() implements Location {}
}
