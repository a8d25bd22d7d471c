package dev.cryo.control;

import java.io.IOException;
import java.util.Locale;
import java.util.Objects;

/**
 * A control operation that was refused. The message says what happened, what was kept and what to do
 * next; {@link #reason()} is the machine-readable reason.
 */
public class ControlException extends IOException {

  /** Why a control operation was refused; {@link #code()} is the stable spelling. */
  public enum Reason {
    /**
     * A path is not a plain relative path (empty, NUL, absolute, {@code .} or {@code ..}), or a
     * symbolic link or non-directory stands where a directory is expected. Fail closed.
     */
    UNSAFE_PATH,
    /** An entry that must be a regular file is something else (named in the message). */
    NOT_A_REGULAR_FILE,
    /** A file holds more bytes than the reader accepts; nothing past the limit was read. */
    READ_LIMIT_EXCEEDED,
    /** The entry exists but the file system refused to open or read it (permissions). */
    UNREADABLE,
    /** There is no {@code run.json}: no server has run in that directory. */
    NO_RUN_STATE,
    /** {@code run.json} exists but does not load. */
    MALFORMED_RUN_STATE,
    /**
     * An entry of a run's home (or the home itself) is owned by another user than the one the
     * server runs as ({@link RunHome}); nothing was read, changed or deleted.
     */
    NOT_OWNED,
    /**
     * An entry of a run's home (or the home itself) may be written by its group or by others
     * ({@link RunHome}); nothing was read, changed or deleted.
     */
    WRITABLE_BY_OTHERS,
    /**
     * A run's home that others may read or enter does not look like a run directory (it holds
     * entries but no {@code run.json}), so it is not made private for them ({@link RunHome});
     * nothing was read, changed or deleted.
     */
    NOT_PRIVATE,
    /** The root's path no longer names the directory that was opened. */
    ROOT_MOVED,
    /** Any other input/output failure of the file system. */
    IO_FAILURE;

    /** The reason in {@code snake_case}, as printed by the CLI and written in its JSON. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;

  /** A refusal for {@code reason}, saying what happened, what was kept and what to do next. */
  public ControlException(Reason reason, String message) {
    this(reason, message, null);
  }

  /** A refusal for {@code reason} caused by {@code cause}. */
  public ControlException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason);
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }
}
