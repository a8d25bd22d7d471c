package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes (fake worker JVMs, the real freezer): a request that read its user frozen, and
 * found him awake when it came to bind him (another request woke him in between), is routed to
 * where he now lives, not sent marked frozen to placement's first choice, where no parcel waits
 * (a {@code no_parcel} and a 500). The window between the read and the bind is held open by the
 * dispatcher's test seam, on a latch.
 */
@Timeout(180)
class WakeRaceTest {

  @TempDir
  Path home;

  @Test
  void aRequestThatReadHimFrozenAfterAnotherWokeHimGoesWhereHeLivesNow() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(2)
        .hold(Duration.ofSeconds(120)).build())) { // the window is held open: no budget runs out
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String first = commander.serve(get("c1", "/counter")).bodyText();
      MoveOutcome away = commander.move("guest_c1"); // frozen, bound for the other worker
      assertThat(away.moved()).as(away.message()).isTrue();

      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch go = new CountDownLatch(1);
      AtomicBoolean once = new AtomicBoolean();
      commander.dispatcher().beforeBind(user -> {
        if (once.compareAndSet(false, true)) { // only the first request that reads him frozen
          entered.countDown();
          try {
            go.await(120, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      });
      CompletableFuture<Reply> stale = CompletableFuture.supplyAsync(
          () -> commander.serve(get("c1", "/counter")));
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue(); // it read him frozen, bound for B

      // Meanwhile another request wakes him on B, and he is moved back and woken on A.
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=2 worker=" + away.to());
      MoveOutcome back = commander.move("guest_c1");
      assertThat(back.moved()).as(back.message()).isTrue();
      assertThat(back.to()).isEqualTo(away.from());
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=3 worker=" + away.from());
      assertThat(first).isEqualTo("user=guest_c1 counter=1 worker=" + away.from());

      go.countDown();
      Reply reply = stale.get(120, TimeUnit.SECONDS);
      assertThat(reply.status()).as(reply.bodyText()).isEqualTo(200);
      assertThat(reply.bodyText()).isEqualTo("user=guest_c1 counter=4 worker=" + away.from());
    }
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
