package dev.cryo.lock;

import java.nio.file.Path;

/** For the tests of other packages: the guard stripe {@link LockFile} uses for a lockfile. */
public final class LockFileStripes {

  private LockFileStripes() {}

  /** The stripe of the canonical lockfile path {@code lockFile}. */
  public static int of(Path lockFile) {
    return LockFile.stripeOf(lockFile);
  }
}
