package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * A lock operation that was refused. Every refusal says what happened, what was kept and what to do
 * next (in its message), and carries a machine-readable {@link #reason()}.
 *
 * <p>{@link LockBusyException} is the one retryable refusal: somebody else holds the lock. Every other
 * reason is a validation refusal that waiting will not cure.
 */
public class LockException extends IOException {

  /** Why a lock operation was refused; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** Another holder has the lock; retry later. */
    BUSY,
    /** The lock's directory does not exist; a {@code ProcessLock} never creates it. */
    DIRECTORY_MISSING,
    /** The lock's directory path names something that is not a directory. */
    NOT_A_DIRECTORY,
    /** The directory vanished while the lock was being acquired. */
    DIRECTORY_DISAPPEARED,
    /** A symbolic link, FIFO, directory or other non-regular file sits at the lockfile's path. */
    NOT_A_REGULAR_FILE,
    /** This thread holds the lock in memory but its record is no longer on disk. */
    LOCK_LOST,
    /** The file system refused to remove our own lockfile; the lock stays registered. */
    RELEASE_REFUSED,
    /** A semaphore release named a holder other than the one on disk; the lock stays. */
    HOLDER_MISMATCH,
    /** The lockfile holds a record that cannot be parsed. */
    MALFORMED_RECORD,
    /** Any other input/output failure of the file system. */
    IO_FAILURE;

    /** The reason in {@code snake_case}, as printed by the CLI and written in its JSON. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final Path lockFile;

  LockException(Reason reason, Path lockFile, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason);
    this.lockFile = lockFile;
  }

  LockException(Reason reason, Path lockFile, String message) {
    this(reason, lockFile, message, null);
  }

  /** The machine-readable reason of this refusal. */
  public Reason reason() {
    return reason;
  }

  /** The lockfile concerned, when there is one. */
  public Path lockFile() {
    return lockFile;
  }

  /** Whether the same call may succeed later without anybody changing anything. */
  public boolean isRetryable() {
    return reason == Reason.BUSY;
  }
}
