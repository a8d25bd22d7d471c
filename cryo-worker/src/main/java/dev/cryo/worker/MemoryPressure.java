package dev.cryo.worker;

/**
 * The seam the {@link HeapValve} hears memory pressure through: collections that ended with the
 * heap past its line. {@link CollectionPressure} is the JVM's own (collection usage thresholds);
 * tests pass their own.
 *
 * <p>Thread-safety: implementations are thread-safe; {@link #listen}'s action may run on any
 * thread (the JVM's notification thread), and must return quickly.
 */
interface MemoryPressure {

  /**
   * How many collections so far ended with the heap past the line: it grows by one for each, so
   * a reader that kept the last value it handled knows whether another came since.
   */
  long overCount();

  /** Runs {@code action} after each collection that ended with the heap past the line. */
  void listen(Runnable action);
}
