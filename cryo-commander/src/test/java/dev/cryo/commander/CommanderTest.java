package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.gone;
import static dev.cryo.commander.FakeWorkers.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The commander over real child JVMs (fake workers speaking the protocol over the real wire). */
@Timeout(120)
class CommanderTest {

  @TempDir
  Path home;

  @Test
  void startsItsWorkersAndServesAGuestFromTheReception() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(2).build())) {
      Reply first = commander.serve(get("c1", "/counter"));
      Reply second = commander.serve(get("c1", "/counter"));

      String reception = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow().name();
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.bodyText()).isEqualTo("user=guest_c1 counter=1 worker=" + reception);
      assertThat(second.bodyText()).startsWith("user=guest_c1 counter=2 ");
      assertThat(commander.knowsConnection("c1")).isTrue();
      assertThat(commander.knowsConnection("c2")).isFalse();

      assertThat(eventually(Duration.ofSeconds(30), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2)).isTrue();
      RunState run = RunDirectory.at(home).loadRunState().orElseThrow();
      assertThat(run.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(run.hasEnded()).isFalse();
      assertThat(eventually(Duration.ofSeconds(10), () -> statusWorkers(home) == 2)).isTrue();
      assertThat(commander.status().usersPlaced()).isEqualTo(1);
      assertThat(events(commander, "fold")).extracting(e -> e.path("kind").asText())
          .containsExactly("new_user", "new_connection");
    }
    assertThat(RunDirectory.at(home).loadRunState().orElseThrow().hasEnded()).isTrue();
    assertThat(new ObjectMapper().readTree(home.resolve(Status.FILE_NAME).toFile())
        .path("state").asText()).isEqualTo("closed");
  }

  @Test
  void aSecondStartOnTheSameHomeIsRefusedNamingTheHolder() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(1).build())) {
      assertThatThrownBy(() -> Commander.start(config(home).workers(1).build()))
          .isInstanceOfSatisfying(CommanderException.class, e -> {
            assertThat(e.reason()).isEqualTo(CommanderException.Reason.HOME_HELD);
            assertThat(e.getMessage()).contains("pid " + ProcessHandle.current().pid());
            assertThat(e.holder()).isPresent();
          });
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200); // untouched
    }
    try (Commander again = Commander.start(config(home).workers(1).build())) {
      assertThat(again.serve(get("c1", "/counter")).bodyText()).startsWith("user=guest_c1 counter=1");
    }
  }

  @Test
  void aWorkerThatDoesNotPresentItselfIsKilledAndStartedAgain() throws Exception {
    Path hang = Files.createFile(home.resolveSibling(home.getFileName() + "-hang"));
    CommanderConfig config = config(home, "-Dcryo.fake.hangWhile=" + hang)
        .workers(1).presentation(Duration.ofSeconds(4)).build();
    CompletableFuture<Commander> started = CompletableFuture.supplyAsync(
        () -> Commander.start(config));
    Path log = home.resolve(EventLog.FILE_NAME);
    assertThat(eventually(Duration.ofSeconds(30), () -> logSays(log, "worker_start_failed")))
        .isTrue();
    Files.delete(hang); // the next attempt presents itself

    try (Commander commander = started.get(60, TimeUnit.SECONDS)) {
      // The hung attempt fails; on a loaded machine a later one may also miss the 4 s, and is
      // then retried the same way: every failed attempt is killed, the last one serves.
      List<JsonNode> failed = events(commander, "worker_start_failed");
      assertThat(failed).isNotEmpty();
      assertThat(failed).allSatisfy(failure ->
          assertThat(failure.path("reason").asText()).contains("did not present itself"));
      List<JsonNode> spawned = events(commander, "worker_spawned");
      assertThat(spawned).hasSize(failed.size() + 1);
      for (JsonNode attempt : spawned.subList(0, failed.size())) {
        long hung = attempt.path("pid").asLong();
        assertThat(gone(hung)).as("the failed attempt's process, pid %d", hung).isTrue();
      }
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);
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
  void aStartThatNeverSucceedsIsAbandonedAndReleasesTheHome() throws Exception {
    Path hang = Files.createFile(home.resolveSibling(home.getFileName() + "-never"));
    CommanderConfig config = config(home, "-Dcryo.fake.hangWhile=" + hang)
        .workers(1).presentation(Duration.ofMillis(2000)).startAttempts(2).build();

    assertThatThrownBy(() -> Commander.start(config))
        .isInstanceOfSatisfying(CommanderException.class, e ->
            assertThat(e.reason()).isEqualTo(CommanderException.Reason.WORKER_START_FAILED));

    List<JsonNode> spawned = new ObjectMapper().readerFor(JsonNode.class)
        .<JsonNode>readValues(home.resolve(EventLog.FILE_NAME).toFile()).readAll().stream()
        .filter(e -> e.path("event").asText().equals("worker_spawned")).toList();
    assertThat(spawned).hasSize(2);
    for (JsonNode spawn : spawned) {
      assertThat(gone(spawn.path("pid").asLong())).isTrue();
    }
    try (Commander after = Commander.start(config(home).workers(1).build())) {
      assertThat(after.status().workers()).hasSize(1); // the lock was released
    }
  }

  @Test
  void aMuteWorkerIsKilledAfterTwoBeatsAndReplaced() throws Exception {
    CommanderConfig config = config(home, "-Dcryo.fake.mute=true").workers(1)
        .heartbeat(Duration.ofMillis(200)).build();
    try (Commander commander = Commander.start(config)) {
      long pid = commander.status().workers().get(0).pid();

      assertThat(eventually(Duration.ofSeconds(20), () -> gone(pid))).isTrue();
      assertThat(eventually(Duration.ofSeconds(20),
          () -> FakeWorkers.count(commander, "worker_died") >= 1)).isTrue();
      assertThat(events(commander, "worker_died").get(0).path("reason").asText())
          .contains("silent for two heartbeats");
      assertThat(eventually(Duration.ofSeconds(20),
          () -> FakeWorkers.count(commander, "worker_presented") >= 2)).isTrue(); // replaced
    }
  }

  @Test
  void aMoveRouteFreezesTheUserAndHisNextRequestWakesHimElsewhere() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(2).build())) {
      assertThat(eventually(Duration.ofSeconds(30), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2)).isTrue();
      commander.serve(get("c1", "/counter"));
      String from = commander.serve(get("c1", "/counter")).bodyText().replaceAll(".*worker=", "")
          .strip();

      Reply moved = commander.serve(post("c1", "/api/move"));

      String to = commander.status().workers().stream().map(Status.WorkerStatus::name)
          .filter(name -> !name.equals(from)).findFirst().orElseThrow();
      assertThat(moved.bodyText()).isEqualTo("moved from=" + from + " to=" + to + " worker=" + to);
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=3 worker=" + to);
      List<String> kinds = events(commander).stream()
          .filter(e -> e.path("user").asText().equals("guest_c1"))
          .map(e -> e.path("event").asText() + ":" + e.path("kind").asText("")
              + "@" + e.path("worker").asText(e.path("to").asText())).toList();
      assertThat(kinds).containsSubsequence("fold:user_frozen@" + from, "move:@" + to,
          "fold:user_adopted@" + to);

      MoveOutcome back = commander.move("guest_c1");
      assertThat(back.moved()).isTrue();
      assertThat(back.from()).isEqualTo(to);
      assertThat(back.to()).isEqualTo(from);
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=4 worker=" + from);
    }
  }

  @Test
  void aMoveWithNowhereToGoIsRefusedAndChangesNothing() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(1).maxWorkers(1).build())) {
      commander.serve(get("c1", "/counter"));

      Reply refused = commander.serve(post("c1", "/api/move"));

      assertThat(refused.bodyText()).startsWith("refused=no_other_worker worker=");
      assertThat(commander.serve(get("c1", "/counter")).bodyText()).startsWith(
          "user=guest_c1 counter=2");
      MoveOutcome outcome = commander.move("guest_c1");
      assertThat(outcome.refusal()).isEqualTo(MoveOutcome.Refusal.NO_OTHER_WORKER);
      assertThat(outcome.message()).contains("--max-workers 1");
      assertThat(commander.move("nobody").refusal()).isEqualTo(MoveOutcome.Refusal.NOT_RESIDENT);
    }
  }

  private static int statusWorkers(Path home) {
    try {
      return new ObjectMapper().readTree(home.resolve(Status.FILE_NAME).toFile())
          .path("workers").size();
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
