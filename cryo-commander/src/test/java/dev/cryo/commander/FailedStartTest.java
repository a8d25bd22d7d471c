package dev.cryo.commander;

import static dev.cryo.commander.DrainTest.call;
import static dev.cryo.commander.DrainTest.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that fails after it adopted an earlier run's users leaves the next start what it found
 * (issue 22, finding 2): a drain carries a user with state, a start adopts him and then fails (its
 * workers do not start; or its caller abandons it, as {@code cryo serve} does when its port is
 * taken), and the start after that brings him back with his state.
 */
@Timeout(300)
class FailedStartTest {

  @TempDir
  Path home;

  private Commander start(String application) {
    return Commander.start(CommanderConfig.builder(home, application).workers(1)
        .workerHeapBytes(128L * 1024 * 1024).hold(Duration.ofSeconds(60)).startAttempts(1)
        .startBackoff(Duration.ofMillis(10)).build());
  }

  /** A run with one user whose page counted to 5, drained: his state, as the page shows it. */
  private JsonNode drainedUserAtFive() throws Exception {
    try (Commander commander = start("dev.cryo.demo.DemoApplication")) {
      String page = call(commander, "c0", "POST", "/api/pages", null).path("page").asText();
      for (int i = 0; i < 5; i++) {
        call(commander, "c0", "POST", "/api/counter", Map.of("page", page));
      }
      JsonNode before = state(commander, "c0", page);
      assertThat(before.path("counter").asInt()).isEqualTo(5);
      DrainReport report = commander.drain(Duration.ofSeconds(5), line -> { });
      assertThat(report.committed()).as(report.summary()).isTrue();
      assertThat(report.carried()).isEqualTo(1);
      ((com.fasterxml.jackson.databind.node.ObjectNode) before).put("page", page);
      return before;
    }
  }

  private void comesBack(JsonNode before) throws Exception {
    String page = before.path("page").asText();
    try (Commander next = start("dev.cryo.demo.DemoApplication")) {
      assertThat(next.startLine()).as("the start's line").contains("1 users come back frozen");
      assertThat(next.knowsConnection("c0")).isTrue();
      JsonNode after = state(next, "c0", page);
      assertThat(after.path("counter").asInt()).isEqualTo(5);
      assertThat(after.path("user")).isEqualTo(before.path("user"));
    }
  }

  @Test
  void aStartWhoseWorkersDoNotStartLeavesTheCarriedUserToTheNextStart() throws Exception {
    JsonNode before = drainedUserAtFive();

    assertThatThrownBy(() -> start("no.such.Application"))
        .isInstanceOf(CommanderException.class)
        .hasMessageContaining("1 user")
        .hasMessageContaining("kept for the next start");
    assertThat(home.resolve(RebootData.DIRECTORY)).isDirectory();

    comesBack(before);
  }

  @Test
  void aStartItsCallerAbandonsLeavesTheCarriedUserToTheNextStart() throws Exception {
    JsonNode before = drainedUserAtFive();

    Commander abandoned = start("dev.cryo.demo.DemoApplication");
    String line = abandoned.abandonStart("the port 8080 is taken");
    assertThat(line).contains("the port 8080 is taken").contains("1 user")
        .contains("kept for the next start");
    assertThat(abandoned.status().state()).isEqualTo("closed");
    assertThat(home.resolve(RebootData.DIRECTORY)).isDirectory();
    assertThat(Files.exists(home.resolve(Journal.FILE_NAME))).isFalse();

    comesBack(before);
  }
}
