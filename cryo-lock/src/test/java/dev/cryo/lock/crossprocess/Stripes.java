package dev.cryo.lock.crossprocess;

import java.nio.file.Path;

/** The in-JVM guard stripe of a lockfile, as {@code LockFile} picks it. */
final class Stripes {

  private Stripes() {}

  static int of(Path lockFile) {
    return dev.cryo.lock.LockFileStripes.of(lockFile);
  }
}
