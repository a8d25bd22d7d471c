package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.Publication.Durability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once {@code link(2)} has published a record, a failure of what follows (removing the temporary,
 * forcing the directory) does not unpublish it: it is reported as what it is, and a lock so
 * published is held, never reported as "nothing was left behind".
 *
 * <p>The failures are real ones, made right after the link through {@link Publication#afterLink}:
 * the temporary's name is taken by a non-empty directory (so its removal fails), or the directory is
 * moved away (so it cannot be opened to be forced).
 */
class PublishedDespiteFailureTest {

  @TempDir Path root;

  @AfterEach
  void resetSeam() {
    Publication.afterLink = Publication.NO_SEAM;
  }

  /** Makes the removal of the temporary fail: a non-empty directory takes its name. */
  static void blockTheTemporary(Path target, Path temporary) throws IOException {
    Files.move(temporary, temporary.resolveSibling("moved-away"));
    Files.createDirectories(temporary.resolve("in-the-way"));
  }

  @Test
  void aLockWhoseTemporaryCannotBeRemovedIsHeldNotRefused() throws Exception {
    Path dir = Files.createDirectory(root.resolve("run"));
    Publication.afterLink = PublishedDespiteFailureTest::blockTheTemporary;

    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "published");
    Publication.afterLink = Publication.NO_SEAM;

    assertThat(LockRecord.parse(Files.readAllBytes(lock.lockFile()))).isEqualTo(lock.record());
    lock.close();
    assertThat(lock.lockFile()).doesNotExist();
  }

  @Test
  void aSemaphoreWhoseTemporaryCannotBeRemovedIsTaken() throws Exception {
    Path folder = root.resolve("u-1");
    Publication.afterLink = PublishedDespiteFailureTest::blockTheTemporary;

    assertThat(FolderSemaphore.tryTake(folder, "taker")).isTrue();
    Publication.afterLink = Publication.NO_SEAM;

    assertThat(FolderSemaphore.holder(folder)).hasValueSatisfying(
        record -> assertThat(record.holder()).isEqualTo("taker"));
  }

  @Test
  void theOutcomeSaysWhatWasLeftBehind() throws Exception {
    Path target = root.resolve("published");
    Publication.afterLink = PublishedDespiteFailureTest::blockTheTemporary;

    Publication.Outcome outcome = Publication.tryPublish(target,
        "content".getBytes(StandardCharsets.UTF_8), Durability.VOLATILE);
    Publication.afterLink = Publication.NO_SEAM;

    assertThat(outcome.published()).isTrue();
    assertThat(outcome.temporaryLeft()).isPresent();
    assertThat(outcome.notForced()).isEmpty();
    assertThat(target).hasContent("content");
    assertThat(Publication.publishExclusive(root.resolve("again"), new byte[] {1},
        Durability.VOLATILE)).isTrue();
  }

  @Test
  void aDurablePublicationWhoseDirectoryCannotBeForcedIsPublishedNotDurable() throws Exception {
    Path dir = Files.createDirectory(root.resolve("dir"));
    Path moved = root.resolve("moved");
    Publication.afterLink = (target, temporary) -> Files.move(dir, moved);

    Publication.Outcome outcome = Publication.tryPublish(dir.resolve("request"),
        "content".getBytes(StandardCharsets.UTF_8), Durability.DURABLE);

    assertThat(outcome.published()).isTrue();
    assertThat(outcome.notForced()).isPresent();
    assertThat(outcome.describe()).contains("published", "not forced");
    assertThat(moved.resolve("request")).hasContent("content");
  }
}
