package dev.cryo.cli;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waiting on a condition, for cross-process tests: never a fixed sleep. */
final class Poll {

  /** Generous: the machine may be busy with other builds; a passing run never waits this long. */
  static final Duration PATIENCE = Duration.ofSeconds(120);

  private Poll() {}

  static void until(String what, BooleanSupplier condition) throws InterruptedException {
    until(what, PATIENCE, condition);
  }

  static void until(String what, Duration patience, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    long pause = 1;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("gave up after " + patience + " waiting until " + what);
      }
      Thread.sleep(pause);
      pause = Math.min(pause * 2, 50);
    }
  }
}
