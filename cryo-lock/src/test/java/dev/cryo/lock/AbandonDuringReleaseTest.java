package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SemaphoreHold#abandon} while the same hold's release is still at work on another thread.
 * The freezer abandons the hold a new take of the same folder replaces, and a take can succeed
 * before the release it follows has returned: a release that recycles its folder frees the
 * folder's name by renaming it to a spare, then unlinks the lockfile inside it through the
 * folder's descriptor. An abandonment that closed that descriptor in between broke the release
 * with an unchecked {@link java.nio.file.ClosedDirectoryStreamException}, the spare lost, its
 * lockfile left in it. The release is stopped there, for real, by {@link LockFile#removalProbe}.
 */
class AbandonDuringReleaseTest {

  @TempDir Path parent;

  private LockFile.RemovalProbe savedProbe;

  @BeforeEach
  void saveProbe() {
    savedProbe = LockFile.removalProbe;
  }

  @AfterEach
  void restoreProbe() {
    LockFile.removalProbe = savedProbe;
  }

  @Test
  void anAbandonmentWaitsForTheReleaseInProgressWhichEndsWhole() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path folder = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(folder, "freeze", spares);
    Path lock = folder.resolve(FolderSemaphore.FILE_NAME);
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    LockFile.removalProbe = path -> {
      if (path.equals(lock) && paused.getCount() > 0) {
        paused.countDown();
        await(resume);
      }
    };
    CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
      try {
        hold.release(false, spares);
      } catch (LockException e) {
        throw new AssertionError(e);
      }
    });
    await(paused); // the folder is at a spare name now, its lockfile not yet unlinked in it
    assertThat(folder).doesNotExist();

    SemaphoreHold next = FolderSemaphore.take(folder, "wake", spares); // the name is free
    assertThat(next).isNotNull();
    Thread abandoner = new Thread(hold::abandon, "abandoner"); // the hold the take replaces
    abandoner.start();
    TestProcesses.awaitCondition("the abandonment waits or is done", () ->
        abandoner.getState() == Thread.State.BLOCKED
            || abandoner.getState() == Thread.State.TERMINATED);
    resume.countDown();

    release.get(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS);
    abandoner.join(TestProcesses.BOUND.toMillis());
    assertThat(spares.size()).as("the recycled folder reached the pool").isEqualTo(1);
    SemaphoreHold fromSpare = FolderSemaphore.take(parent.resolve("u-2"), "freeze", spares);
    assertThat(fromSpare.record().holder()).isEqualTo("freeze");
    assertThat(Files.readAllBytes(parent.resolve("u-2").resolve(FolderSemaphore.FILE_NAME)))
        .as("the spare came without the old lockfile").isEqualTo(fromSpare.record().toBytes());
    assertThat(FolderSemaphore.holder(folder)).contains(next.record());
    fromSpare.release(false);
    next.release(false);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
