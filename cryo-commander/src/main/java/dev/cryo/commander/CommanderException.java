package dev.cryo.commander;

import dev.cryo.lock.LockRecord;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The commander could not start (or was used after it closed). The message says what happened,
 * what was kept and what to do; {@link #reason()} is machine-readable.
 */
public final class CommanderException extends RuntimeException {

  /** Why. */
  public enum Reason {
    /** Another run holds the home's run lock; {@link #holder()} names it. {@code cryo serve} exits 75. */
    HOME_HELD,
    /**
     * The home, or an entry of it the run uses, breaks the home's rule ({@code RunHome}): another
     * user's, writable by its group or others, or a link or special file where the run keeps a
     * file or directory. Nothing was read, changed or deleted. {@code cryo serve} exits 65.
     */
    HOME_REFUSED,
    /** The home cannot be used: not writable, a lock that does not read, a failed set-up. */
    HOME_UNUSABLE,
    /** The application's configuration file ({@code --app-config}) does not read: nothing runs. */
    BAD_APP_CONFIG,
    /** The first worker could not be started (every attempt failed): nothing runs. */
    WORKER_START_FAILED,
    /** The commander is closed. */
    CLOSED;

    /** The reason in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final transient LockRecord holder;

  CommanderException(Reason reason, String message, Throwable cause) {
    this(reason, message, cause, null);
  }

  CommanderException(Reason reason, String message, Throwable cause, LockRecord holder) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.holder = holder;
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }

  /** For {@link Reason#HOME_HELD}: the holder's lock record, when it could be read. */
  public Optional<LockRecord> holder() {
    return Optional.ofNullable(holder);
  }
}
