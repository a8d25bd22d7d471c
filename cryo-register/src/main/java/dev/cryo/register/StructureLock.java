package dev.cryo.register;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

/**
 * The structure lock of a register (shared by the three primary registers of a registry): which
 * rows exist, the indexes, the edges of the chain. Writers hold it exclusively, for in-memory
 * bookkeeping only. Readers first read optimistically — no write to shared memory, so reads on many
 * threads do not contend — and validate that no writer came in between; a reader that was overtaken
 * reads again holding the lock shared. Not re-entrant: nothing in the package takes it while
 * holding it, except optimistic reads, which never block.
 *
 * <p>What an optimistic reader walks — the rows' maps, the index buckets, the key sets, the rows'
 * field arrays — is written only by the holder of the exclusive side, but read while it writes, so
 * each of them may be walked during a write: the maps and large key sets are concurrent ones (a
 * plain hash map turns a bucket of colliding keys into a tree, and a reader meeting a rotation
 * halfway, or seeing its writes out of order, can walk in a circle for ever; a concurrent map's
 * readers never walk a tree being rebalanced), and the rest are arrays, bounded by their length.
 * So a walk over a torn view ends; whatever it returns or throws is discarded unless the stamp is
 * still valid, and a valid stamp means no write happened during the walk, which then saw everything
 * the last writer wrote.
 */
final class StructureLock {

  private final StampedLock lock = new StampedLock();
  private final Lock write = lock.asWriteLock();
  private final Lock read = lock.asReadLock();

  /** The exclusive side, for lifecycle operations and index changes. */
  Lock write() {
    return write;
  }

  /** The shared side, for reads that must not be overtaken, and for tests. */
  Lock read() {
    return read;
  }

  /** Starts an optimistic read: a stamp to {@link #valid validate}, or zero while a writer holds it. */
  long optimistic() {
    return lock.tryOptimisticRead();
  }

  /** Whether no writer came in since {@code stamp} (a non-zero stamp of {@link #optimistic}). */
  boolean valid(long stamp) {
    return lock.validate(stamp);
  }

  /**
   * Runs {@code reader} over one consistent view and returns what it read. The reader may run more
   * than once and, on a first optimistic try, see a torn view: it must have no side effects, and
   * what it returns or throws from a torn view is discarded. A refusal it throws from a consistent
   * view is the caller's.
   */
  <T> T read(Supplier<T> reader) {
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0L) {
      try {
        T value = reader.get();
        if (lock.validate(stamp)) {
          return value;
        }
      } catch (RuntimeException refusedOrTorn) {
        if (lock.validate(stamp)) {
          throw refusedOrTorn;
        }
      }
    }
    stamp = lock.readLock();
    try {
      return reader.get();
    } finally {
      lock.unlockRead(stamp);
    }
  }
}
