package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.LockException;
import dev.cryo.lock.LockValidationException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO planted at a user's folder name: the freezer's take and its calls without a hold refuse
 * it at once and never open it (a read-only open of a FIFO waits for a writer, for good when none
 * comes), and the FIFO stays as it was.
 */
class FolderFifoTest {

  private static final Duration BOUND = Duration.ofSeconds(30);

  @TempDir Path temp;

  /**
   * Runs {@code call} on its own thread and answers how it ended; when it still runs after a
   * generous bound (stuck in an open of {@code fifo}), opens the FIFO to let it go, and fails.
   */
  private static <T> CompletableFuture<T> endsWithoutBlocking(Path fifo, Callable<T> call)
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
      outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      // ended with a refusal: the caller looks at it
    } catch (TimeoutException e) {
      // Read-write, this end never waits, and the blocked read-only open returns once it is there.
      try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        thread.join(BOUND.toMillis());
      }
      throw new AssertionError("the call blocked opening the FIFO at " + fifo, e);
    }
    return outcome;
  }

  private static void mkfifo(Path path) throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(mkfifo.exitValue()).isZero();
  }

  @Test
  void aTakeRefusesAFifoAtTheFolderNameAtOnce() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    FreezeAndAdopt.cycle(freezer, "bob"); // a spare folder at hand, as in a running worker
    Path folder = freezer.folder("alice");
    mkfifo(folder);

    CompletableFuture<Boolean> take =
        endsWithoutBlocking(folder, () -> freezer.tryTakeSemaphore("alice", "w"));

    assertThat(take).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
    assertThat(Files.readAttributes(folder, BasicFileAttributes.class).isOther()).isTrue();
  }

  @Test
  void aReadWithoutAHoldRefusesAFifoAtTheFolderNameAtOnce() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    Path folder = freezer.folder("alice");
    mkfifo(folder);

    CompletableFuture<?> read = endsWithoutBlocking(folder, () -> freezer.readUserParcel("alice"));

    assertThat(read).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.getMessage()).contains("a FIFO"));
  }

  /** One freeze and adoption, which leaves a spare folder behind. */
  private static final class FreezeAndAdopt {
    static void cycle(Freezer freezer, String user) throws Exception {
      assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
      freezer.writeUserParcel(user, java.util.Map.of("n", 1), "w", "freeze", "g");
      freezer.releaseSemaphore(user, "w");
      assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
      freezer.dropUserParcel(user);
      freezer.releaseSemaphore(user, "w");
    }
  }
}
