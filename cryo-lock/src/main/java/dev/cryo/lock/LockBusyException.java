package dev.cryo.lock;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The lock is held by somebody else (retryable). {@link #holder()} says who, when the record could be
 * read; the message names the lock, the holder's pid, host, holder name and since when.
 */
public final class LockBusyException extends LockException {

  private final transient LockRecord holder;

  LockBusyException(Path lockFile, LockRecord holder, String detail) {
    super(Reason.BUSY, lockFile, message(lockFile, holder, detail));
    this.holder = holder;
  }

  private static String message(Path lockFile, LockRecord holder, String detail) {
    String who = holder == null ? "a holder whose record cannot be read" : holder.describe();
    return "lock " + lockFile + " is held by " + who + (detail == null ? "" : " (" + detail + ")")
        + "; nothing was changed: retry later, or wait longer";
  }

  /** The record of the current holder, when it could be read. */
  public Optional<LockRecord> holder() {
    return Optional.ofNullable(holder);
  }
}
