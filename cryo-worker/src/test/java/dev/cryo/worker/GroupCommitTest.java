package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The group commit of durable checkpoints ({@link GroupCommit}): whoever joins while a force runs
 * is forced with the next group, all at once; a failed force fails its whole group, and only it.
 */
class GroupCommitTest {

  @Test
  void membersArrivingDuringAForceAreForcedTogetherInTheNext() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<List<String>> groups = new CopyOnWriteArrayList<>();
    GroupCommit commit = new GroupCommit(users -> {
      groups.add(users);
      if (users.contains("anna")) {
        firstStarted.countDown();
        await(release);
      }
    });
    CompletableFuture<Void> anna = forceAsync(commit, "anna");
    assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<Void>> others = new ArrayList<>();
    for (String user : List.of("bob", "carl", "dora", "emil")) {
      others.add(forceAsync(commit, user));
    }
    awaitJoined(commit, others.size());
    assertThat(anna).as("the first force still runs").isNotDone();
    release.countDown();
    anna.get(10, TimeUnit.SECONDS);
    for (CompletableFuture<Void> other : others) {
      other.get(10, TimeUnit.SECONDS);
    }
    assertThat(groups).hasSize(2);
    assertThat(groups.get(0)).containsExactly("anna");
    assertThat(groups.get(1)).containsExactlyInAnyOrder("bob", "carl", "dora", "emil");
    assertThat(commit.groups()).isEqualTo(2);
    assertThat(commit.members()).isEqualTo(5);
  }

  @Test
  void aFailedForceFailsItsGroupOnly() throws Exception {
    GroupCommit commit = new GroupCommit(users -> {
      if (users.contains("anna")) {
        throw new IOException("No space left on device");
      }
    });
    assertThatThrownBy(() -> commit.force("anna")).isInstanceOf(IOException.class)
        .hasMessageContaining("No space left");
    commit.force("bob"); // the next group is forced
    assertThat(commit.groups()).isEqualTo(2);
  }

  private static CompletableFuture<Void> forceAsync(GroupCommit commit, String user) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread.ofVirtual().start(() -> {
      try {
        commit.force(user);
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  /** Waits until {@code count} members joined the open group. */
  private static void awaitJoined(GroupCommit commit, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (commit.waiting() < count) {
      assertThat(System.nanoTime()).as("members joined").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
