package dev.cryo.lock.crossprocess;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child of {@link LeanContenderCrossProcessTest}: the life of a short-lived contender. It takes
 * and releases a free lock (a record made, written and removed), then tries once a lock another
 * process holds (that holder's record read and judged, a refusal worded), says {@code @REFUSED
 * <message>} and exits with 0; anything else exits with 1.
 *
 * <pre>
 * ContenderMain FREE_DIRECTORY HELD_DIRECTORY
 * </pre>
 */
public final class ContenderMain {

  private ContenderMain() {}

  public static void main(String[] args) throws Exception {
    ProcessLock.acquire(Path.of(args[0]), Duration.ZERO).close();
    try {
      ProcessLock.acquire(Path.of(args[1]), Duration.ZERO).close();
      System.out.println("@TAKEN the held lock");
      System.exit(1);
    } catch (LockBusyException e) {
      System.out.println("@REFUSED " + e.getMessage());
    }
    System.exit(0);
  }
}
