package dev.cryo.freezer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * A freezer operation that was refused or failed. Every one says what happened, what was kept and
 * what to do next (in its message), names the file concerned, and carries a machine-readable
 * {@link #reason()}.
 */
public class FreezerException extends IOException {

  /** Why a freezer operation failed; {@link #code()} is the stable machine-readable spelling. */
  public enum Reason {
    /** A parcel is torn, truncated or altered: it is not read, whatever it might have held. */
    CORRUPT_PARCEL,
    /** A parcel was written by a newer format version than this reader knows. */
    UNSUPPORTED_VERSION,
    /**
     * A parcel is larger than the freezer's cap ({@link Freezer#maxParcelLength()}): a write is
     * refused before anything is written; a file found larger is neither read nor changed.
     */
    PARCEL_TOO_LARGE,
    /** The payload is complete but the codec refuses it (a value it does not map, a planted type). */
    INVALID_PAYLOAD,
    /** Something that is not a regular file sits where a parcel is expected, or not a directory where a folder is. */
    NOT_A_REGULAR_FILE,
    /** A parcel is written into a folder that does not exist: the semaphore was not taken. */
    FOLDER_MISSING,
    /** A folder or the root survived its own removal. */
    SURVIVED_REMOVAL,
    /** The root cannot move to its new name in one atomic rename (another file system, most often). */
    RENAME_REFUSED,
    /** Any other input/output failure of the file system (a full disk among them). */
    IO_FAILURE;

    /** The reason in {@code snake_case}, as printed by the CLI and written in its JSON. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Reason reason;
  private final Path file;

  FreezerException(Reason reason, Path file, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason);
    this.file = file;
  }

  FreezerException(Reason reason, Path file, String message) {
    this(reason, file, message, null);
  }

  /** The machine-readable reason. */
  public Reason reason() {
    return reason;
  }

  /** The file or folder concerned, when there is one. */
  public Path file() {
    return file;
  }
}
