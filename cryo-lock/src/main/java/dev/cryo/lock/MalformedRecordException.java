package dev.cryo.lock;

/** The bytes of a lockfile are not a {@link LockRecord}; the message says why, in a bounded line. */
public final class MalformedRecordException extends Exception {

  MalformedRecordException(String problem) {
    super(problem);
  }
}
