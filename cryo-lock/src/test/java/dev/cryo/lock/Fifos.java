package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * FIFOs for tests of opens that must never block on one (a read-only open of a FIFO waits for a
 * writer, for good when none comes); shared with the tests of the modules above through this
 * module's test jar.
 */
public final class Fifos {

  private Fifos() {}

  /** Makes a FIFO at {@code path} ({@code mkfifo}), failing the test when it cannot. */
  public static void make(Path path) throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(mkfifo.exitValue()).isZero();
  }

  /**
   * Runs {@code call} on its own thread and answers how it ended; when it is still running after a
   * generous bound (it is stuck in an open of {@code fifo}), opens the FIFO for writing to let it
   * go, and fails.
   */
  public static <T> CompletableFuture<T> endsWithoutBlocking(Path fifo, Callable<T> call)
      throws Exception {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(call.call());
      } catch (Throwable e) {
        outcome.completeExceptionally(e);
      }
    }, "fifo-opener");
    thread.setDaemon(true);
    thread.start();
    try {
      outcome.get(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      // ended with a refusal: the caller looks at it
    } catch (TimeoutException e) {
      // Opened read-write, this end never waits, and the blocked read-only open returns once it
      // is there.
      try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        thread.join(TestProcesses.BOUND.toMillis());
      }
      throw new AssertionError("the call blocked opening the FIFO at " + fifo
          + " until a writer came", e);
    }
    return outcome;
  }
}
