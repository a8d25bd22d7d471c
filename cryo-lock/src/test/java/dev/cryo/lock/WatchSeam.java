package dev.cryo.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The wake-up tests' handle on {@link ReleaseWatch}'s nap: lifted far above a test's bound, a
 * waiter can only meet the bound if the file-change notification woke it. Public for the tests of
 * other packages (and their child JVMs); one test at a time (the nap is JVM-wide).
 */
public final class WatchSeam {

  private WatchSeam() {}

  /** Lets a notified waiter sleep up to {@code nap} at a time; until {@link #restore}. */
  public static void napAtMost(Duration nap) {
    ReleaseWatch.maxNapNanos = nap.toNanos();
  }

  /** Puts the nap back to {@link ReleaseWatch#MAX_NAP_MILLIS}. */
  public static void restore() {
    ReleaseWatch.maxNapNanos = TimeUnit.MILLISECONDS.toNanos(ReleaseWatch.MAX_NAP_MILLIS);
  }
}
