package dev.cryo.cli;

import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Path;

/**
 * The directory a {@code cryo lock} command names, checked the way {@link ProcessLock} checks it: it
 * must exist and be a directory (it is never created). Its lockfile is {@code DIR/.lock}.
 */
final class LockDirectory {

  private LockDirectory() {}

  /**
   * The lockfile of {@code directory}.
   *
   * @throws CommandFailure with {@link ExitCodes#NO_INPUT} when the directory is missing or is not a
   *     directory, {@link ExitCodes#IO} when it cannot be examined
   */
  static LockFile lockFileOf(Path directory) {
    return LockFile.at(ExistingDirectory.check(directory, "lock directory")
        .resolve(ProcessLock.FILE_NAME));
  }
}
