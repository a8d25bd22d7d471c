package dev.cryo.cli;

import dev.cryo.lock.LockException;

/**
 * The exit codes of the {@code cryo} command. Refusals use the BSD {@code sysexits.h} values, so a
 * script can tell a bad command line from a missing directory from a busy lock; {@code cryo lock run}
 * otherwise exits with its command's own status, as a shell does.
 */
public final class ExitCodes {

  /** Success. */
  public static final int OK = 0;

  /** The command line is wrong (unknown option, bad duration, missing argument). EX_USAGE. */
  public static final int USAGE = 64;

  /**
   * The lock's path holds something unexpected: not a regular file, or a record that cannot be used.
   * EX_DATAERR.
   */
  public static final int DATA = 65;

  /** The lock directory does not exist, is not a directory, or vanished. EX_NOINPUT. */
  public static final int NO_INPUT = 66;

  /**
   * {@code cryo serve}: the run could not start (the port, a worker, the application). EX_UNAVAILABLE.
   */
  public static final int UNAVAILABLE = 69;

  /** An unexpected failure inside cryo (a bug): the message says what. EX_SOFTWARE. */
  public static final int SOFTWARE = 70;

  /**
   * A drain could not write what it had to (a full disk). {@code cryo stop --wait}: the run
   * refused the drain and serves on, keeping the users it could not write awake. {@code cryo
   * serve}: its drain could not commit the reboot data; the journal is kept for the next start.
   * EX_CANTCREAT.
   */
  public static final int CANNOT_WRITE = 73;

  /** The file system refused a read, write or removal. EX_IOERR. */
  public static final int IO = 74;

  /** The lock is held by somebody else; retry later. EX_TEMPFAIL. */
  public static final int BUSY = 75;

  /** {@code cryo lock run}: the command was found but could not be executed, as in a shell. */
  public static final int CANNOT_EXECUTE = 126;

  /** {@code cryo lock run}: the command was not found, as in a shell. */
  public static final int NOT_FOUND = 127;

  /** {@code cryo lock run}: a command killed by signal {@code n} gives {@code SIGNALLED + n}. */
  public static final int SIGNALLED = 128;

  private ExitCodes() {}

  /** The exit code for a refusal of the lock library. */
  public static int of(LockException.Reason reason) {
    return switch (reason) {
      case BUSY -> BUSY;
      case DIRECTORY_MISSING, NOT_A_DIRECTORY, DIRECTORY_DISAPPEARED -> NO_INPUT;
      case NOT_A_REGULAR_FILE, MALFORMED_RECORD, HOLDER_MISMATCH -> DATA;
      case LOCK_LOST, RELEASE_REFUSED, IO_FAILURE -> IO;
    };
  }
}
