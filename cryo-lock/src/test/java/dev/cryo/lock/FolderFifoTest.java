package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO planted at a semaphore folder's name: a take, and an open of the folder, refuse it at once
 * and never open it (a read-only open of a FIFO waits for a writer, for good when none comes).
 */
class FolderFifoTest {

  @TempDir Path temporary;

  @Test
  void aTakeRefusesAFifoAtTheFolderNameWithoutOpeningIt() throws Exception {
    Path folder = temporary.resolve("u-1");
    Fifos.make(folder);

    CompletableFuture<SemaphoreHold> take =
        Fifos.endsWithoutBlocking(folder, () -> FolderSemaphore.take(folder, "h"));

    assertThat(take).failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(ExecutionException.class).havingCause()
        .isInstanceOfSatisfying(LockValidationException.class, e -> {
          assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY);
          assertThat(e.getMessage()).contains("a FIFO");
        });
    assertThat(Files.readAttributes(folder, java.nio.file.attribute.BasicFileAttributes.class)
        .isOther()).as("the FIFO stays as it was").isTrue();
  }

  @Test
  void aTakeWithSparesRefusesAFifoAtTheFolderName() throws Exception {
    SpareFolders spares = new SpareFolders(temporary.toRealPath());
    Path folder = temporary.toRealPath().resolve("u-1");
    SemaphoreHold first = FolderSemaphore.take(folder, "h", spares);
    first.release(false, spares);
    assertThat(spares.size()).as("a spare is at hand").isEqualTo(1);
    Fifos.make(folder);

    CompletableFuture<SemaphoreHold> take =
        Fifos.endsWithoutBlocking(folder, () -> FolderSemaphore.take(folder, "h", spares));

    assertThat(take).failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(ExecutionException.class).havingCause()
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
  }

  @Test
  void anOpenOfTheFolderRefusesAFifoSayingWhatIsThere() throws Exception {
    Path folder = temporary.resolve("u-1");
    Fifos.make(folder);

    CompletableFuture<?> open = Fifos.endsWithoutBlocking(folder, () -> NoFollowDirectory.open(folder));

    assertThat(open).failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(ExecutionException.class).havingCause()
        .isInstanceOf(NotDirectoryException.class)
        .withMessageContaining(folder + " is a FIFO, not a directory");
  }

  @Test
  void theCleaningOfAbandonedTemporariesRefusesAFifoAtTheFolderName() throws Exception {
    Path folder = temporary.resolve("u-1");
    Fifos.make(folder);

    CompletableFuture<Integer> cleaning = Fifos.endsWithoutBlocking(folder,
        () -> Publication.removeAbandoned(folder, FolderSemaphore.FILE_NAME, ProcessTable.system()));

    assertThat(cleaning).failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(ExecutionException.class).havingCause()
        .isInstanceOf(NotDirectoryException.class);
  }

  @Test
  void aRegularFileAndALinkAreRefusedAsBefore() throws Exception {
    Path file = Files.writeString(temporary.resolve("file"), "x");
    assertThatThrownBy(() -> NoFollowDirectory.open(file)).isInstanceOf(NotDirectoryException.class)
        .hasMessageContaining("is a regular file");
    Path target = Files.createDirectory(temporary.resolve("target"));
    Path link = Files.createSymbolicLink(temporary.resolve("link"), target);
    assertThatThrownBy(() -> NoFollowDirectory.open(link)).isInstanceOf(NotDirectoryException.class)
        .hasMessageContaining("a symbolic link");
    try (var directory = NoFollowDirectory.open(target)) {
      assertThat(directory.iterator().hasNext()).isFalse();
    }
  }
}
