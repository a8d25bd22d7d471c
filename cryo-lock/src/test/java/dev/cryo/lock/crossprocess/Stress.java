package dev.cryo.lock.crossprocess;

import dev.cryo.lock.Publication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Sizes, seeds and common waits of the cross-process tests.
 *
 * <p>{@code -Dcryo.stress.scale=N} multiplies the sizes (default 1, what CI runs);
 * {@code -Dcryo.stress.seed=S} replays a run whose seed a failure printed.
 */
public final class Stress {

  private Stress() {}

  /** The size multiplier, at least 1. */
  public static int scale() {
    return Math.max(1, Integer.getInteger("cryo.stress.scale", 1));
  }

  /** The seed of this run: the property's when given, else a fresh one; printed either way. */
  public static long seed(String test) {
    String given = System.getProperty("cryo.stress.seed");
    long seed = given == null || given.isBlank() ? new SecureRandom().nextLong() : Long.decode(given);
    System.out.println(test + ": seed " + seed + " (replay with -Dcryo.stress.seed=" + seed
        + "), scale " + scale());
    return seed;
  }

  /**
   * Waits until {@code count} clients said {@code DONE} to the verifier, failing at once when a
   * violation is seen or a child ends with a non-zero status.
   */
  public static void awaitDone(LockVerifier verifier, List<ChildJvm> children, int count,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      verifier.assertNoViolations();
      for (ChildJvm child : children) {
        if (!child.process().isAlive() && child.process().exitValue() != 0) {
          throw new AssertionError(child + " failed with status " + child.process().exitValue()
              + "\n" + child.tail());
        }
      }
      if (verifier.awaitDone(count, Duration.ofMillis(250))) {
        verifier.assertNoViolations();
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + ": only " + verifier.done() + " of "
            + count + " clients were done, after " + verifier.enters() + " entries");
      }
    }
  }

  /** The temporaries and aside links of {@link Publication} in {@code directory}. */
  public static List<Path> sideFiles(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.filter(path -> Publication.isSideFile(path.getFileName().toString()))
          .sorted().toList();
    } catch (NoSuchFileException e) {
      return List.of(); // a semaphore folder comes and goes
    }
  }

  /** The pid written in the name of a side file ({@code .lock.cryo-tmp.<pid>.<hex>}). */
  public static long pidOfSideFile(Path sideFile) {
    String[] parts = sideFile.getFileName().toString().split("\\.");
    return Long.parseLong(parts[parts.length - 2]);
  }
}
