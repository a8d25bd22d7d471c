package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.Fifos;
import dev.cryo.lock.LockException;
import dev.cryo.lock.LockValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO planted at a user's folder name: the freezer's take and its calls without a hold refuse
 * it at once and never open it (a read-only open of a FIFO waits for a writer, for good when none
 * comes), and the FIFO stays as it was.
 */
class FolderFifoTest {

  @TempDir Path temp;

  @Test
  void aTakeRefusesAFifoAtTheFolderNameAtOnce() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    FreezeAndAdopt.cycle(freezer, "bob"); // a spare folder at hand, as in a running worker
    Path folder = freezer.folder("alice");
    Fifos.make(folder);

    CompletableFuture<Boolean> take =
        Fifos.endsWithoutBlocking(folder, () -> freezer.tryTakeSemaphore("alice", "w"));

    assertThat(take).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
    assertThat(Files.readAttributes(folder, BasicFileAttributes.class).isOther()).isTrue();
  }

  @Test
  void aReadWithoutAHoldRefusesAFifoAtTheFolderNameAtOnce() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    Path folder = freezer.folder("alice");
    Fifos.make(folder);

    CompletableFuture<?> read = Fifos.endsWithoutBlocking(folder, () -> freezer.readUserParcel("alice"));

    assertThat(read).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.getMessage()).contains("a FIFO"));
  }

  @Test
  void listingTheRootRefusesAFifoSwappedInForItAtOnce() throws Exception {
    Path root = temp.resolve("freezer");
    Freezer freezer = new Freezer(root);
    FreezeAndAdopt.cycle(freezer, "bob");
    Files.move(root, temp.resolve("freezer.away"));
    Fifos.make(root);

    CompletableFuture<?> listed = Fifos.endsWithoutBlocking(root, freezer::folderKeys);

    assertThat(listed).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOf(FreezerException.class);
    assertThat(Files.readAttributes(root, BasicFileAttributes.class).isOther()).isTrue();
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
