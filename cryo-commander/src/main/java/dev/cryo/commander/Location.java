package dev.cryo.commander;

/**
 * Where the routing maps say a user lives: on a worker, in the freezer, or nowhere they know, with
 * the generations that fence his stays ({@link dev.cryo.wire.protocol.Grant}). Immutable values.
 */
public sealed interface Location {

  /** The maps know nothing of him. */
  Location UNKNOWN = new Unknown();

  /**
   * He lives in the memory of {@code worker}, granted at {@code generation} (0: a worker that does
   * not tell generations, as the test workers do).
   */
  record OnWorker(String worker, long generation) implements Location {

    /** On {@code worker} at generation 0. */
    public OnWorker(String worker) {
      this(worker, 0);
    }
  }

  /**
   * He is in the freezer (a {@code user_frozen} named him), frozen at {@code generation}: his
   * wake reads a parcel of that generation or newer. {@code destination} is the worker his next
   * request goes to when one was already chosen (a move, or the first request of a burst), else
   * null; {@code wakeGeneration} is the generation granted to that wake (0 while unbound).
   */
  record Frozen(String destination, long generation, long wakeGeneration) implements Location {

    /** Frozen at generation 0, bound for {@code destination} at generation 0. */
    public Frozen(String destination) {
      this(destination, 0, 0);
    }

    /** The same, bound for {@code worker} at {@code wake} (null and 0: unbound). */
    Frozen boundFor(String worker, long wake) {
      return new Frozen(worker, generation, wake);
    }
  }

  /** The maps know nothing of him: a guest yet to be born, a lost user, a dropped one. */
  record Unknown() implements Location {}
}
