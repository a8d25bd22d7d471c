package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.StopMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The run around the workers: growth, stop requests, status.json, deep homes, impostors. */
@Timeout(120)
class CommanderRunTest {

  @TempDir
  Path home;

  @Test
  void aMoveWithEveryWorkerFullStartsANewOne() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(1).maxWorkers(2)
        .maxUsersPerWorker(1).build())) {
      commander.serve(get("c1", "/counter"));
      String first = commander.status().workers().get(0).name();

      MoveOutcome outcome = commander.move("guest_c1");

      assertThat(outcome.moved()).as(outcome.message()).isTrue();
      assertThat(outcome.from()).isEqualTo(first);
      assertThat(outcome.to()).isNotEqualTo(first);
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=2 worker=" + outcome.to());
      assertThat(commander.status().workers()).hasSize(2);
    }
  }

  @Test
  void aStopRequestForTheRunIsHandedOnOnce() throws Exception {
    CompletableFuture<StopMode> asked = new CompletableFuture<>();
    // The fakes' own beat: a shorter one kills an idle worker whose ping takes a second to come
    // back, as it may on a loaded machine, and the request after the stop then finds none.
    try (Commander commander = Commander.start(config(home).workers(1)
        .onStopRequest(asked::complete).build())) {
      RunDirectory.at(home).requestStop(StopMode.NOW);

      assertThat(asked.get(20, TimeUnit.SECONDS)).isEqualTo(StopMode.NOW);
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);
    }
  }

  @Test
  void statusJsonIsPublishedInItsDocumentedShape() throws Exception {
    try (Commander commander = Commander.start(config(home).workers(1).build())) {
      commander.serve(get("c1", "/counter"));
      assertThat(eventually(Duration.ofSeconds(20),
          () -> status(home).path("users").path("placed").asInt() == 1)).isTrue();

      JsonNode status = status(home);
      assertThat(status.path("schema").asText()).isEqualTo(Status.SCHEMA);
      assertThat(status.path("state").asText()).isEqualTo("running");
      assertThat(status.path("run").path("pid").asLong())
          .isEqualTo(ProcessHandle.current().pid());
      assertThat(status.path("run").path("invocation_id").asText())
          .isEqualTo(RunDirectory.at(home).loadRunState().orElseThrow().invocationId());
      JsonNode worker = status.path("workers").get(0);
      assertThat(worker.path("name").asText()).isEqualTo("main_0001");
      assertThat(worker.path("state").asText()).isEqualTo("running");
      assertThat(worker.path("users").asInt()).isEqualTo(1);
      assertThat(worker.path("heap_max_bytes").asLong()).isPositive();
      assertThat(worker.path("reception").asBoolean()).isTrue();
      assertThat(worker.has("pid") && worker.has("heap_used_bytes") && worker.has("age_seconds"))
          .isTrue();
      assertThat(status.path("users").path("frozen").asInt()).isZero();
      assertThat(status.path("users").path("lost").asInt()).isZero();
    }
  }

  @Test
  void aHomeTooDeepForASocketPathGetsAPrivateSocketDirectory() throws Exception {
    Path deep = home.resolve("a".repeat(60)).resolve("b".repeat(60));
    try (Commander commander = Commander.start(config(deep).workers(1).build())) {
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);
      JsonNode spawned = events(commander, "worker_spawned").get(0);
      assertThat(spawned).isNotNull();
      assertThat(Files.exists(deep.resolve("sockets"))).isFalse();
    }
  }

  @Test
  void anImpostorsPresentationClosesItsWireAndItsStartFails() throws Exception {
    CommanderConfig config = config(home, "-Dcryo.fake.name=impostor").workers(1)
        .startAttempts(1).build();

    assertThatThrownBy(() -> Commander.start(config)).isInstanceOf(CommanderException.class);

    List<JsonNode> failed = new ObjectMapper().readerFor(JsonNode.class)
        .<JsonNode>readValues(home.resolve(EventLog.FILE_NAME).toFile()).readAll().stream()
        .filter(e -> e.path("event").asText().equals("worker_start_failed")).toList();
    assertThat(failed).hasSize(1);
    assertThat(failed.get(0).path("reason").asText()).contains("wire closed");
  }

  @Test
  void aReplyAheadOfItsAnnouncementsIsRecordedAsABrokenOrdering() throws Exception {
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.skew=1").workers(1)
        .build())) {
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);

      List<JsonNode> anomalies = events(commander, "anomaly");
      assertThat(anomalies).hasSize(1);
      assertThat(anomalies.get(0).path("message").asText()).contains("ordering rule is broken");
      assertThat(commander.status().anomalies()).isEqualTo(1);
    }
  }

  private static JsonNode status(Path home) {
    try {
      return new ObjectMapper().readTree(home.resolve(Status.FILE_NAME).toFile());
    } catch (java.io.IOException e) {
      return new ObjectMapper().createObjectNode();
    }
  }
}
