package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: the cap {@code --max-users-per-worker} applies to new users, and a burst of them never
 * overshoots it. Two births are decided and held just before their calls are sent (nothing reached
 * the worker, the maps know of nobody): a third new connection is refused 503 "saturated" because
 * the births in flight count against the worker. Before, a new connection went to the reception
 * with no admission check at all, and the third was placed on the full worker.
 */
@Timeout(180)
class NewUserCapTest {

  @TempDir
  Path home;

  @Test
  void birthsInFlightCountAgainstTheCapAndANewUserPastItIsRefusedSaturated() throws Exception {
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        "dev.cryo.demo.DemoApplication").workers(1).maxWorkers(1).maxUsersPerWorker(2)
        .workerHeapBytes(128L * 1024 * 1024).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 1)).isTrue();
      CountDownLatch decided = new CountDownLatch(2);
      CountDownLatch release = new CountDownLatch(1);
      commander.dispatcher().beforeSend((user, worker) -> {
        if (user == null) { // a birth, placed and counted, its call not sent yet
          decided.countDown();
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      });
      ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
      CompletableFuture<Reply> first = CompletableFuture.supplyAsync(() -> get(commander, "n1"),
          threads);
      CompletableFuture<Reply> second = CompletableFuture.supplyAsync(() -> get(commander, "n2"),
          threads);
      assertThat(decided.await(60, TimeUnit.SECONDS)).as(() -> "decided: " + (first.isDone()
          ? first.join().status() + " " + first.join().bodyText() : "not done")).isTrue();
      assertThat(commander.routing().counts().placed()).as("nobody born yet").isZero();

      Reply third = get(commander, "n3");

      assertThat(third.status()).as(third.bodyText()).isEqualTo(503);
      assertThat(third.header("Cryo-Reason")).isEqualTo("saturated");
      assertThat(third.header("Retry-After")).isNotNull();
      assertThat(third.bodyText()).contains("--max-users-per-worker");
      release.countDown();
      assertThat(first.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
      assertThat(second.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);

      Reply fourth = get(commander, "n4"); // the two are born now: the maps count them
      assertThat(fourth.status()).as(fourth.bodyText()).isEqualTo(503);
      assertThat(commander.routing().counts().placed()).isEqualTo(2);
    }
  }

  private static Reply get(Commander commander, String connection) {
    return commander.serve(new Request(connection, "GET", "/api/state", "", List.of(),
        new byte[0]));
  }
}
