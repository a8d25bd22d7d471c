package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing by path never opens a FIFO at that path (a read-only open of a FIFO waits for a
 * writer): it is refused at once, and the callers that list by name (the spare folders' clean-up
 * among them) end instead of hanging.
 */
class DirectoryListingTest {

  @TempDir Path temp;

  @Test
  void aDirectoryListsItsEntriesByName() throws Exception {
    Path directory = Files.createDirectory(temp.resolve("d"));
    Files.createFile(directory.resolve("a"));
    Files.createDirectory(directory.resolve("b"));

    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> entries = DirectoryListing.open(directory)) {
      entries.forEach(entry -> names.add(entry.getFileName().toString()));
    }

    assertThat(names).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aFifoAtThePathIsRefusedAtOnceAndStaysAsItWas() throws Exception {
    Path fifo = temp.resolve("fifo");
    Fifos.make(fifo);

    CompletableFuture<Integer> listed = Fifos.endsWithoutBlocking(fifo, () -> {
      try (DirectoryStream<Path> entries = DirectoryListing.open(fifo)) {
        return entries.iterator().hasNext() ? 1 : 0;
      }
    });

    assertThat(listed).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOf(NotDirectoryException.class);
    assertThat(Files.readAttributes(fifo, BasicFileAttributes.class).isOther()).isTrue();
  }

  @Test
  void theSpareFoldersCleanUpEndsAtOnceOnAFifoAtItsParent() throws Exception {
    Path fifo = temp.resolve("root");
    Fifos.make(fifo);

    CompletableFuture<Integer> removed =
        Fifos.endsWithoutBlocking(fifo, () -> SpareFolders.removeAbandoned(fifo));

    assertThat(removed).succeedsWithin(Duration.ZERO).isEqualTo(0);
  }
}
