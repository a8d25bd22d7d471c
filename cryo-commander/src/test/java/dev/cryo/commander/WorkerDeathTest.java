package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.kill9;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.freezer.Freezer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a worker: its unfrozen users are lost by name (maps, folders), its frozen
 * users keep their state, a new reception appears, and held requests are answered 503 past the
 * wait.
 */
@Timeout(120)
class WorkerDeathTest {

  @TempDir
  Path home;

  @Test
  void aKilledReceptionLosesItsUnfrozenUsersByNameAndKeepsItsFrozenOnes() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(2).build())) {
      assertThat(eventually(Duration.ofSeconds(30), () -> running(commander) == 2)).isTrue();
      Status.WorkerStatus reception = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow();
      commander.serve(get("alive", "/counter"));
      commander.serve(get("alive", "/counter"));
      commander.serve(get("frozen", "/counter"));
      commander.serve(get("frozen", "/counter"));
      commander.serve(get("frozen", "/counter"));
      MoveOutcome moved = commander.move("guest_frozen"); // frozen on the reception, not woken yet
      assertThat(moved.moved()).isTrue();
      assertThat(moved.from()).isEqualTo(reception.name());
      Freezer freezer = new Freezer(home.resolve("freezer"));
      Files.createDirectories(freezer.folder("guest_alive")); // what a half-done freeze leaves

      kill9(reception.pid());

      assertThat(eventually(Duration.ofSeconds(20),
          () -> !commander.knowsConnection("alive"))).isTrue();
      JsonNode death = events(commander, "worker_died").get(0);
      assertThat(death.path("worker").asText()).isEqualTo(reception.name());
      assertThat(death.path("lost")).extracting(JsonNode::asText).containsExactly("guest_alive");
      assertThat(Files.exists(freezer.folder("guest_alive"))).isFalse();
      assertThat(commander.status().usersLost()).isEqualTo(1);
      assertThat(commander.knowsConnection("frozen")).isTrue();

      // The frozen user wakes with his counter. The lost one's cookie, read by the front before
      // his loss, is answered "forgotten": no user is made on an id a client brought; the front
      // then mints a new connection (here, a test's own id does as a minted one).
      assertThat(commander.serve(get("frozen", "/counter")).bodyText())
          .isEqualTo("user=guest_frozen counter=4 worker=" + moved.to());
      Request fromCookie = new Request("alive", "GET", "/counter", "", java.util.List.of(),
          null, true);
      assertThat(commander.serve(fromCookie).forgottenConnection()).isTrue();
      assertThat(commander.knowsConnection("alive")).isFalse();
      assertThat(commander.serve(get("alive", "/counter")).bodyText())
          .startsWith("user=guest_alive counter=1 ");

      // A new reception: the oldest running worker, and a replacement keeps two running.
      assertThat(eventually(Duration.ofSeconds(30), () -> running(commander) == 2)).isTrue();
      Status.WorkerStatus next = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow();
      assertThat(next.name()).isNotEqualTo(reception.name());
      assertThat(commander.status().workers()).extracting(Status.WorkerStatus::name)
          .doesNotContain(reception.name());
    }
  }

  /**
   * A soak's defect: a request read its connection's user, then his worker's death was folded
   * (he was forgotten) before it read where he lives; "nowhere" made it a birth, and a new user was
   * made on the id a client's cookie brought. Now the request reads the connection again, and a
   * cookie's request is answered "forgotten" (the front mints a new connection).
   */
  @Test
  void aUserForgottenBetweenTheReadsOfHisRequestIsNeverBornAgainOnHisCookie() throws Exception {
    // Real workers (the demo): a fake one would not make a user from the birth grant.
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        "dev.cryo.demo.DemoApplication").workers(2).workerHeapBytes(128L * 1024 * 1024)
        .hold(Duration.ofSeconds(60)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      assertThat(commander.serve(new Request("c1", "POST", "/api/pages", "", java.util.List.of(),
          null)).status()).isEqualTo(200);
      long pid = commander.status().workers().stream().filter(Status.WorkerStatus::reception)
          .findFirst().orElseThrow().pid();
      java.util.concurrent.atomic.AtomicBoolean once =
          new java.util.concurrent.atomic.AtomicBoolean();
      commander.dispatcher().beforeLocate(user -> {
        if (user.equals("guest_c1") && once.compareAndSet(false, true)) {
          try {
            kill9(pid);
            assertThat(eventually(Duration.ofSeconds(30), () -> !commander.knowsConnection("c1")))
                .isTrue();
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }
      });

      Reply reply = commander.serve(new Request("c1", "GET", "/api/state", "",
          java.util.List.of(), null, true));

      assertThat(once.get()).isTrue();
      assertThat(reply.forgottenConnection()).as(reply.status() + " " + reply.bodyText()).isTrue();
      assertThat(commander.knowsConnection("c1")).isFalse();
    }
  }

  @Test
  void aCallInFlightWhenItsWorkerDiesIsAnswered502() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(1).build())) {
      commander.serve(get("c1", "/counter"));
      Status.WorkerStatus worker = commander.status().workers().get(0);
      CompletableFuture<Reply> hanging = CompletableFuture.supplyAsync(
          () -> commander.serve(get("c1", "/hang")));
      Path log = home.resolve("workers").resolve(worker.name() + ".log");
      assertThat(eventually(Duration.ofSeconds(20), () -> logSays(log, "hanging"))).isTrue();

      kill9(worker.pid());

      Reply reply = hanging.get(30, TimeUnit.SECONDS);
      assertThat(reply.status()).isEqualTo(502);
      assertThat(reply.bodyText()).contains("died");
    }
  }

  private static boolean logSays(Path log, String text) {
    try {
      return Files.exists(log) && Files.readString(log).contains(text);
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void aUserHeldPastTheWaitIsAnswered503WithRetryAfter() throws Exception {
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.freeze=hang")
        .workers(2).hold(Duration.ofMillis(400)).orderTimeout(Duration.ofSeconds(20))
        .retryAfterSeconds(7).build())) {
      assertThat(eventually(Duration.ofSeconds(30), () -> running(commander) == 2)).isTrue();
      commander.serve(get("c1", "/counter"));
      CompletableFuture<MoveOutcome> move = CompletableFuture.supplyAsync(
          () -> commander.move("guest_c1"));
      assertThat(eventually(Duration.ofSeconds(20), () -> commander.status().usersHeld() == 1))
          .isTrue();

      long before = System.nanoTime();
      Reply reply = commander.serve(get("c1", "/counter"));
      long waited = System.nanoTime() - before;

      assertThat(reply.status()).isEqualTo(503);
      assertThat(reply.header("Retry-After")).isEqualTo("7");
      assertThat(reply.bodyText()).contains("guest_c1").contains("held");
      assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(400).toNanos());
      assertThat(commander.serve(get("c2", "/counter")).status()).isEqualTo(200); // others go on

      commander.close(); // ends the hanging freeze order
      assertThat(move.get(30, TimeUnit.SECONDS).moved()).isFalse();
    }
  }

  @Test
  void aClosedCommanderAnswers503() throws Exception {
    Commander commander = Commander.start(config(home).workers(1).build());
    long pid = commander.status().workers().get(0).pid();
    commander.close();
    commander.close();

    Reply reply = commander.serve(get("c1", "/counter"));
    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.header("Retry-After")).isNotNull();
    assertThat(FakeWorkers.gone(pid)).isTrue();
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
