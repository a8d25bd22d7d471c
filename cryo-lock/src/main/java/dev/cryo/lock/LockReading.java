package dev.cryo.lock;

import java.time.Instant;
import java.util.Arrays;

/**
 * What a reader found at a lockfile's path. Reading never throws for what it finds: each shape has
 * its own case.
 */
public sealed interface LockReading {

  /** Nothing is there: the lock is free. */
  record Absent() implements LockReading {}

  /**
   * A record that parses.
   *
   * @param record the record
   * @param bytes the exact bytes read, which a remover compares before removing
   * @param modified the file's modification time
   */
  record Present(LockRecord record, byte[] bytes, Instant modified) implements LockReading {
    /** Defensive copy of the bytes. */
    public Present {
      bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
      return bytes.clone();
    }

    boolean sameBytes(byte[] other) {
      return Arrays.equals(bytes, other);
    }
  }

  /**
   * A regular file that is not a record (empty, truncated by an older writer, edited by hand).
   *
   * @param problem why it does not parse, in one bounded line
   * @param bytes the bytes read (at most {@link LockRecord#MAX_BYTES} + 1)
   * @param modified the file's modification time, from which the grace period is counted
   */
  record Malformed(String problem, byte[] bytes, Instant modified) implements LockReading {
    /** Defensive copy of the bytes. */
    public Malformed {
      bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
      return bytes.clone();
    }

    boolean sameBytes(byte[] other) {
      return Arrays.equals(bytes, other);
    }
  }

  /**
   * Something that is not a regular file: never followed, never opened for reading.
   *
   * @param kind what is there, in words ("a symbolic link", "a FIFO", "a directory", …)
   */
  record NotRegular(String kind) implements LockReading {}

  /**
   * A file this process may not read, or whose reading failed: the lock counts as held.
   *
   * @param problem why, in one line
   */
  record Unreadable(String problem) implements LockReading {}
}
