package dev.cryo.cli;

import dev.cryo.lock.LockException;

/**
 * A refusal of a {@code cryo} command: printed as one line, {@code cryo: REASON: MESSAGE}, and turned
 * into its exit code, never into a stack trace (unless {@code --verbose} or {@code CRYO_DEBUG}).
 */
public final class CommandFailure extends RuntimeException {

  private final int exitCode;
  private final String reasonCode;

  /**
   * A refusal.
   *
   * @param exitCode the process exit code, one of {@link ExitCodes}
   * @param reasonCode the machine-readable reason, in {@code snake_case}
   * @param message what happened, what was kept, what to do next; one line
   */
  public CommandFailure(int exitCode, String reasonCode, String message) {
    this(exitCode, reasonCode, message, null);
  }

  /** A refusal caused by {@code cause}, kept for {@code --verbose}. */
  public CommandFailure(int exitCode, String reasonCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
    this.reasonCode = reasonCode;
  }

  /** A refusal of the lock library, with its reason and exit code. */
  public static CommandFailure of(LockException e) {
    return new CommandFailure(ExitCodes.of(e.reason()), e.reason().code(), e.getMessage(), e);
  }

  /** The exit code. */
  public int exitCode() {
    return exitCode;
  }

  /** The machine-readable reason, in {@code snake_case}. */
  public String reasonCode() {
    return reasonCode;
  }
}
