package dev.cryo.cli;

import dev.cryo.lock.LockException;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Path;

/**
 * The directory a {@code cryo lock} command names, checked and resolved exactly as
 * {@link ProcessLock#acquire} (and so {@code cryo lock run}) resolves it: it must exist and be a
 * directory (it is never created), and {@code link/..} is the parent of the link's target, never the
 * directory holding the link. Its lockfile is {@code DIR/.lock}.
 */
final class LockDirectory {

  private LockDirectory() {}

  /**
   * The lockfile of {@code directory}, by {@link ProcessLock#lockFileOf}.
   *
   * @throws CommandFailure with {@link ExitCodes#NO_INPUT} when the directory is missing or is not a
   *     directory, {@link ExitCodes#IO} when it cannot be examined
   */
  static LockFile lockFileOf(Path directory) {
    try {
      return LockFile.at(ProcessLock.lockFileOf(directory.toAbsolutePath()));
    } catch (LockException e) {
      throw CommandFailure.of(e);
    }
  }
}
