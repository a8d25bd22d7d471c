package dev.cryo.cli;

import dev.cryo.lock.LockException;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

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
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(directory, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new CommandFailure(ExitCodes.NO_INPUT, LockException.Reason.DIRECTORY_MISSING.code(),
          "the lock directory " + directory + " does not exist; nothing was created: name an"
              + " existing directory", e);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, LockException.Reason.IO_FAILURE.code(),
          "cannot examine the lock directory " + directory + ": " + e.getMessage(), e);
    }
    if (!attributes.isDirectory()) {
      throw new CommandFailure(ExitCodes.NO_INPUT, LockException.Reason.NOT_A_DIRECTORY.code(),
          "the lock directory path " + directory + " is not a directory; nothing was changed:"
              + " name a directory");
    }
    return LockFile.at(directory.resolve(ProcessLock.FILE_NAME));
  }
}
