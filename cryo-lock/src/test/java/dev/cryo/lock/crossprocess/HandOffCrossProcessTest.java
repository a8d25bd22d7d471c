package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.WatchSeam;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waiting across processes: a waiter with a long wait gets the lock soon after the holder in another
 * process lets it go (released, or killed), not at its deadline. These are wake-up assertions, not
 * speed assertions: the bound ({@link #SOON}) is a small fraction of the wait ({@link #LONG_WAIT}),
 * so only a waiter that missed the release can break it.
 *
 * <p>A release is seen through the file-change notification, so the waiters of the release tests
 * nap up to {@link #LONG_WAIT} at a time ({@link WatchSeam}) instead of the production cap of a
 * quarter of a second: with the notification dead, they sleep past {@link #SOON} and the test fails
 * there. A kill removes nothing, so no notification comes: the reclaim after a kill is seen by the
 * production nap, which that test keeps.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HandOffCrossProcessTest {

  private static final Duration LONG_WAIT = Duration.ofMinutes(10);
  private static final Duration SOON = Duration.ofSeconds(10);
  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path temporary;
  private Path directory;
  private final List<ChildJvm> children = new ArrayList<>();

  @BeforeEach
  void makeDirectory() throws Exception {
    directory = Files.createDirectory(temporary.resolve("locked"));
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    WatchSeam.restore();
    for (ChildJvm child : children) {
      child.close();
    }
  }

  @Test
  void aWaiterHereGetsTheLockSoonAfterAChildReleasesIt() throws Exception {
    ChildJvm holder = start("holder", "hold", directory.toString());
    String token = holder.awaitLine("@HELD", START);
    WatchSeam.napAtMost(LONG_WAIT);
    CompletableFuture<ProcessLock> waiter = CompletableFuture.supplyAsync(() -> {
      try {
        return ProcessLock.acquire(directory, LONG_WAIT, "waiter");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(500); // let it settle into its wait (if it has not, the test only gets easier)
    assertThat(waiter).as("the lock is held by the child").isNotDone();

    long released = System.nanoTime();
    holder.send("release");
    holder.awaitLine("@RELEASED", START);
    try (ProcessLock lock = waiter.get(SOON.toMillis(), TimeUnit.MILLISECONDS)) {
      long waited = System.nanoTime() - released;
      System.out.printf("a waiter here acquired %.1f ms after the child was told to release%n",
          waited / 1e6);
      assertThat(Duration.ofNanos(waited)).isLessThan(SOON);
      assertThat(lock.record().token()).isNotEqualTo(token);
      assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  @Test
  void aWaitingChildGetsTheLockSoonAfterThisJvmReleasesIt() throws Exception {
    ProcessLock held = ProcessLock.acquire(directory, Duration.ZERO, "holder here");
    ChildJvm waiter;
    try {
      waiter = start("waiter", HolderMain.NAP_AT_MOST + LONG_WAIT.toMillis(), "wait-acquire",
          directory.toString(), Long.toString(LONG_WAIT.toMillis()));
      waiter.awaitLine("@WAITING", START);
      Thread.sleep(500);
    } finally {
      held.close();
    }
    long released = System.nanoTime();
    String waitedByChild = waiter.awaitLine("@ACQUIRED", SOON);
    long waited = System.nanoTime() - released;
    System.out.printf("a waiting child acquired %.1f ms after this JVM released (it waited %s ms)%n",
        waited / 1e6, waitedByChild);
    assertThat(Duration.ofNanos(waited)).isLessThan(SOON);
    waiter.send("exit");
    assertThat(waiter.awaitExit(START)).isZero();
    assertThat(directory).as("released at the child's exit").isEmptyDirectory();
  }

  @Test
  void aWaitingChildReclaimsSoonAfterTheHolderIsKilled() throws Exception {
    ChildJvm holder = start("holder", "hold", directory.toString());
    holder.awaitLine("@HELD", START);
    ChildJvm waiter = start("waiter", "wait-acquire", directory.toString(),
        Long.toString(LONG_WAIT.toMillis()));
    waiter.awaitLine("@WAITING", START);
    Thread.sleep(500);
    long killed = System.nanoTime();
    holder.kill();
    waiter.awaitLine("@ACQUIRED", SOON);
    long waited = System.nanoTime() - killed;
    System.out.printf("a waiting child reclaimed %.1f ms after the holder was killed%n",
        waited / 1e6);
    assertThat(Duration.ofNanos(waited)).isLessThan(SOON);
  }

  @Test
  void aLiveHolderInAnotherProcessMakesTheWaitEndBusyNamingIt() throws Exception {
    ChildJvm holder = start("holder", "hold", directory.toString());
    holder.awaitLine("@HELD", START);
    byte[] before = Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME));
    long start = System.nanoTime();
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ofMillis(400), "waiter"))
        .isInstanceOfSatisfying(LockBusyException.class, e -> {
          assertThat(e.isRetryable()).isTrue();
          assertThat(e.getMessage()).contains("pid " + holder.pid());
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
        Duration.ofMillis(400));
    assertThat(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME))).isEqualTo(before);
  }

  private ChildJvm start(String name, String... arguments) throws Exception {
    ChildJvm child = ChildJvm.start(name, HolderMain.class, List.of(arguments));
    children.add(child);
    return child;
  }
}
