package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RunListener#heldWait}: a request that finds its user held tells the run's listeners how
 * long it waited and whether the hold was released; a request that finds no hold tells nothing.
 * The hold is a move's whose freeze order never answers (a fake worker), so it stands until the
 * order's timeout (released) or past the request's budget (not released).
 */
@Timeout(120)
class HeldWaitTest {

  @TempDir
  Path home;

  /** One {@link RunListener#heldWait} call. */
  private record Wait(String user, boolean released, long nanos) {}

  @Test
  void aRequestWaitingForAHoldReportsItsWaitAndWhetherTheHoldWasReleased() throws Exception {
    // The move's order gives up after 5 s: the request must come while it stands, and a loaded
    // machine may take a second or more between seeing the hold and sending it.
    try (Commander commander = start(Duration.ofSeconds(5), Duration.ofSeconds(60))) {
      List<Wait> waits = waits(commander);
      assertThat(commander.serve(get("c1", "/counter")).bodyText()).startsWith(
          "user=guest_c1 counter=1");
      assertThat(waits).as("a request that found no hold").isEmpty();

      CompletableFuture<MoveOutcome> move = CompletableFuture.supplyAsync(
          () -> commander.move("guest_c1"));
      assertThat(eventually(Duration.ofSeconds(20), () -> commander.status().usersHeld() == 1))
          .isTrue();
      long before = System.nanoTime();
      Reply reply = commander.serve(get("c1", "/counter")); // waits for the move to give up
      long took = System.nanoTime() - before;

      assertThat(move.get(30, TimeUnit.SECONDS).moved()).isFalse();
      assertThat(reply.bodyText()).startsWith("user=guest_c1 counter=2"); // served where he was
      assertThat(waits).hasSize(1);
      Wait wait = waits.get(0);
      assertThat(wait.user()).isEqualTo("guest_c1");
      assertThat(wait.released()).isTrue();
      assertThat(wait.nanos()).isPositive().isLessThanOrEqualTo(took);
    }
  }

  @Test
  void aRequestHeldPastItsBudgetReportsAWaitNotReleased() throws Exception {
    try (Commander commander = start(Duration.ofSeconds(20), Duration.ofMillis(400))) {
      List<Wait> waits = waits(commander);
      commander.serve(get("c1", "/counter"));
      CompletableFuture<MoveOutcome> move = CompletableFuture.supplyAsync(
          () -> commander.move("guest_c1"));
      assertThat(eventually(Duration.ofSeconds(20), () -> commander.status().usersHeld() == 1))
          .isTrue();

      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(503);

      assertThat(waits).hasSize(1);
      assertThat(waits.get(0).user()).isEqualTo("guest_c1");
      assertThat(waits.get(0).released()).isFalse();
      assertThat(waits.get(0).nanos()).isPositive();
      commander.close(); // ends the hanging freeze order
      assertThat(move.get(30, TimeUnit.SECONDS).moved()).isFalse();
    }
  }

  /** Two fake workers whose freeze orders never answer, running. */
  private Commander start(Duration orderTimeout, Duration hold) throws InterruptedException {
    Commander commander = Commander.start(config(home, "-Dcryo.fake.freeze=hang").workers(2)
        .orderTimeout(orderTimeout).hold(hold).build());
    try {
      assertThat(eventually(Duration.ofSeconds(30), () -> running(commander) == 2)).isTrue();
    } catch (AssertionError e) {
      commander.close();
      throw e;
    }
    return commander;
  }

  /** The held waits {@code commander}'s listeners are told of from now on. */
  private static List<Wait> waits(Commander commander) {
    List<Wait> waits = new CopyOnWriteArrayList<>();
    commander.addListener(new RunListener() {
      @Override
      public void heldWait(String user, boolean released, long nanos) {
        waits.add(new Wait(user, released, nanos));
      }
    });
    return waits;
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
