package dev.cryo.lock;

import java.nio.file.Path;

/**
 * A refusal that waiting will not cure: a missing directory, something that is not a regular file at
 * the lockfile's path, a record that cannot be parsed, a release the file system refused. The
 * message says what happened, what was kept and what to do; {@link #reason()} is machine-readable.
 */
public final class LockValidationException extends LockException {

  LockValidationException(Reason reason, Path lockFile, String message, Throwable cause) {
    super(reason, lockFile, message, cause);
    if (reason == Reason.BUSY) {
      throw new IllegalArgumentException("busy is not a validation refusal");
    }
  }

  LockValidationException(Reason reason, Path lockFile, String message) {
    this(reason, lockFile, message, null);
  }
}
