package dev.cryo.lock;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The lock is held by somebody else (retryable). {@link #holder()} says who, when the record could be
 * read; the message names the lock, the holder's pid, host, holder name and since when.
 *
 * <p>The message is worded when it is first asked for, not when the refusal is made: a contender
 * that tries again and again is refused far more often than anybody reads why. Thread-safe.
 */
public final class LockBusyException extends LockException {

  private final transient LockRecord holder;
  private final transient String detail;
  private volatile String message; // worded on first use; kept when serialised

  LockBusyException(Path lockFile, LockRecord holder, String detail) {
    super(Reason.BUSY, lockFile, null);
    this.holder = holder;
    this.detail = detail;
  }

  @Override
  public String getMessage() {
    String worded = message;
    if (worded == null) {
      String who = holder == null ? "a holder whose record cannot be read" : holder.describe();
      worded = "lock " + lockFile() + " is held by " + who
          + (detail == null ? "" : " (" + detail + ")")
          + "; nothing was changed: retry later, or wait longer";
      message = worded;
    }
    return worded;
  }

  /** The record of the current holder, when it could be read. */
  public Optional<LockRecord> holder() {
    return Optional.ofNullable(holder);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    getMessage(); // the transient parts it is worded from do not travel
    out.defaultWriteObject();
  }
}
