package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes: a worker that stops reading its wire but keeps sending frames is heard all
 * the time, so silence never finds it; its pings go unanswered, and two beats of that kill it as
 * silence would (its group killed, buried, a replacement started), while the other worker, whose
 * pings are answered, lives on.
 *
 * <p>The deaf worker is a fake worker JVM ({@code cryo.fake.deaf}): once presented it sends an
 * announcement every 100 ms, and serves its first ping on the thread that reads its wire without
 * ever returning, so it reads nothing more.
 */
@Timeout(180)
class UnansweredPingTest {

  @TempDir
  Path home;

  @Test
  void aWorkerThatKeepsSendingButAnswersNoPingIsKilledByTheHeartbeat() throws Exception {
    Duration beat = Duration.ofSeconds(1);
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.deaf=main_0001")
        .workers(2).heartbeat(beat).build())) {
      // Two beats of unanswered pings kill it; 60 beats leave a loaded machine room.
      assertThat(eventually(beat.multipliedBy(60), () -> FakeWorkers.count(commander,
          "worker_died") > 0)).as("the deaf worker was declared dead").isTrue();
      JsonNode death = events(commander, "worker_died").get(0);
      assertThat(death.path("worker").asText()).isEqualTo("main_0001");
      assertThat(death.path("reason").asText()).isEqualTo(Supervisor.UNANSWERED);

      // It was heard until then: its frames came over more than the two beats that kill a
      // silent worker, so silence alone would never have found it.
      List<JsonNode> sent = events(commander, "anomaly").stream()
          .filter(e -> e.path("worker").asText().equals("main_0001")).toList();
      assertThat(sent).as("the deaf worker's frames, each skipped").hasSizeGreaterThan(2);
      long heardFor = Instant.parse(sent.get(sent.size() - 1).path("at").asText())
          .toEpochMilli() - Instant.parse(sent.get(0).path("at").asText())
          .toEpochMilli();
      assertThat(heardFor).as("ms between its first and last frame")
          .isGreaterThan(beat.multipliedBy(2).toMillis());

      long pid = events(commander, "worker_presented").stream()
          .filter(e -> e.path("worker").asText().equals("main_0001")).findFirst().orElseThrow()
          .path("pid").asLong();
      assertThat(eventually(Duration.ofSeconds(30), () -> FakeWorkers.gone(pid)))
          .as("its process was killed").isTrue();
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2))
          .as("a replacement runs beside the worker that answers").isTrue();
      assertThat(commander.status().workers()).extracting(Status.WorkerStatus::name)
          .contains("main_0002").doesNotContain("main_0001");
      assertThat(events(commander, "worker_died")).extracting(e -> e.path("worker").asText())
          .doesNotContain("main_0002");
    }
  }
}
