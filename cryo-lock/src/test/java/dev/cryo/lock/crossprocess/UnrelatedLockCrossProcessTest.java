package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import dev.cryo.lock.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A release that waits for another process (a reclaimer holding the lockfile's kernel record lock
 * while it judges it) waits on its own: a try-once take of an unrelated folder, even one whose
 * lockfile shares the release's in-JVM guard stripe, answers at once.
 */
class UnrelatedLockCrossProcessTest {

  private static final Duration BOUND = Duration.ofSeconds(30);

  @TempDir Path root;

  @Test
  void aTryOnceTakeDoesNotWaitBehindAnUnrelatedReleaseThatWaits() throws Exception {
    Path waiting = root.resolve("waiting");
    assertThat(FolderSemaphore.tryTake(waiting, "freeze waiting")).isTrue();
    Path waitingLock = LockFile.at(waiting.resolve(".lock")).path();
    Path unrelated = folderOnTheSameStripeAs(waitingLock);
    ProcessTable table = ProcessTable.system();
    long initStart = Signals.startTicks(1);
    Files.write(unrelated.resolve(".lock"), new LockRecord(1, initStart, table.bootId(),
        table.host(), "init", LockRecord.fresh(ProcessIdentity.current(), "x").token(),
        Instant.now(), 0, -1).toBytes());

    try (ChildJvm reclaimer = ChildJvm.start("reclaimer", RecordLockMain.class,
        List.of(waitingLock.toString()))) {
      reclaimer.awaitLine("@LOCKED", BOUND);
      AtomicReference<Thread> releaser = new AtomicReference<>();
      CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
        releaser.set(Thread.currentThread());
        try {
          FolderSemaphore.release(waiting, "freeze waiting");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      awaitWaiting(releaser);

      boolean taken = FolderSemaphore.tryTake(unrelated, "try once");
      boolean releaseStillWaiting = !release.isDone();

      reclaimer.send("done");
      assertThat(releaseStillWaiting)
          .as("the try-once take answered while the unrelated release still waited").isTrue();
      assertThat(taken).isFalse();
      release.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertThat(waiting).doesNotExist();
    }
  }

  /** A folder, made now, whose lockfile falls on the same guard stripe as {@code lockFile}. */
  private Path folderOnTheSameStripeAs(Path lockFile) throws Exception {
    for (int i = 0; ; i++) {
      Path folder = Files.createDirectory(root.resolve("unrelated-" + i));
      Path candidate = LockFile.at(folder.resolve(".lock")).path();
      if (Stripes.of(candidate) == Stripes.of(lockFile)) {
        return folder;
      }
      Files.delete(folder);
    }
  }

  /** Waits until the releasing thread has started and waits (parked or sleeping). */
  private static void awaitWaiting(AtomicReference<Thread> releaser) {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (true) {
      Thread thread = releaser.get();
      if (thread != null && thread.getState() == Thread.State.TIMED_WAITING) {
        return;
      }
      assertThat(System.nanoTime() - deadline).as("the release never waited").isNegative();
      LockSupport.parkNanos(200_000);
    }
  }
}
