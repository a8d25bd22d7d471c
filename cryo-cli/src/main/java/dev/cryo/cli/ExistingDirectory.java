package dev.cryo.cli;

import dev.cryo.lock.LockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A directory named on the command line that must already exist: the commands that read or lock
 * one never create it.
 */
final class ExistingDirectory {

  private ExistingDirectory() {}

  /**
   * {@code directory} as an absolute path, once it is known to exist and be a directory.
   *
   * @param what what the directory is, for messages ("lock directory", "freezer root")
   * @throws CommandFailure with {@link ExitCodes#NO_INPUT} when it is missing or not a directory,
   *     {@link ExitCodes#IO} when it cannot be examined
   */
  static Path check(Path directory, String what) {
    Path absolute = directory.toAbsolutePath().normalize();
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(absolute, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new CommandFailure(ExitCodes.NO_INPUT, LockException.Reason.DIRECTORY_MISSING.code(),
          "the " + what + " " + absolute + " does not exist; nothing was created: name an existing "
              + what, e);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, LockException.Reason.IO_FAILURE.code(),
          "cannot examine the " + what + " " + absolute + ": " + e.getMessage(), e);
    }
    if (!attributes.isDirectory()) {
      throw new CommandFailure(ExitCodes.NO_INPUT, LockException.Reason.NOT_A_DIRECTORY.code(),
          "the " + what + " " + absolute + " is not a directory; nothing was changed: name a "
              + what);
    }
    return absolute;
  }
}
