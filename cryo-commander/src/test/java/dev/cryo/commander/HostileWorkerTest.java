package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test 3 of the runtime, across processes: workers that turn hostile after their presentation —
 * random bytes, a bad magic or version, lengths past the limits, a header that is not JSON, a
 * truncated frame, an unknown method, a reply to an id never asked — each have their one wire
 * closed with its reason; the commander never crashes and goes on serving the reception's users,
 * without a single failed request.
 */
class HostileWorkerTest {

  @TempDir Path home;

  @Test
  void everyKindOfHostileFrameClosesOnlyItsWireAndTheOthersKeepServing() throws Exception {
    CommanderConfig config = FakeWorkers.config(home, "-Dcryo.fake.fuzz=true")
        .workers(2).maxWorkers(2).startAttempts(20).build();
    try (Commander commander = Commander.start(config)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      // The reception is the oldest worker by presentation: main_0002 may present first, and then
      // it is the reception until its hostility ends it. The loyal guest waits for main_0001.
      assertThat(FakeWorkers.eventually(Duration.ofSeconds(60), () -> commander.status()
          .workers().stream().anyMatch(worker -> worker.reception()
              && worker.name().equals("main_0001")))).as("main_0001 is the reception").isTrue();
      long served = 0;
      while (FakeWorkers.count(commander, "worker_died") < 8 && System.nanoTime() < deadline) {
        Reply reply = commander.serve(FakeWorkers.get("loyal", "/counter"));
        assertThat(reply.status()).as(reply.bodyText()).isEqualTo(200);
        assertThat(reply.bodyText()).contains("worker=main_0001")
            .contains("counter=" + (served + 1));
        served++;
      }
      List<JsonNode> deaths = FakeWorkers.events(commander, "worker_died");
      assertThat(deaths).as("eight hostile workers, each closed").hasSizeGreaterThanOrEqualTo(8);
      Set<String> dead = new TreeSet<>();
      deaths.forEach(death -> dead.add(death.path("worker").asText()));
      assertThat(dead).doesNotContain("main_0001");
      assertThat(deaths).allSatisfy(death -> assertThat(death.path("reason").asText())
          .isNotBlank());
      assertThat(commander.status().state()).isEqualTo("running");
      assertThat(served).isGreaterThan(0);
      Reply after = commander.serve(FakeWorkers.get("loyal", "/counter"));
      assertThat(after.status()).isEqualTo(200);
    }
  }
}
