package dev.cryo.commander;

import static dev.cryo.commander.DrainTest.call;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain on a full disk loses nobody. The run's home is a small tmpfs, filled to the last byte
 * before the drain: no worker can write its users. The drain is refused: nothing is committed or
 * deleted, no worker quits, the run admits again and every user stays awake with his state and
 * is served on; {@code drain_refused} names each one who stays and why. Once space returns, a new
 * drain carries them all, and the next start gives each back his counter.
 */
@Timeout(180)
class DrainFullDiskTest {

  @TempDir
  Path mountPoint;

  private Commander start(Path home) {
    return Commander.start(CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(1).workerHeapBytes(128L * 1024 * 1024).hold(Duration.ofSeconds(30)).build());
  }

  @Test
  void aDrainThatCannotWriteItsUsersKeepsThemServedAndTheNextDrainCarriesThem() throws Exception {
    try (TmpfsHome disk = TmpfsHome.mount(mountPoint, 16)) {
      Path home = disk.directory().resolve("run");
      java.nio.file.Files.createDirectories(home);
      Map<String, String> pages = new LinkedHashMap<>();
      try (Commander commander = start(home)) {
        assertThat(eventually(Duration.ofSeconds(90), () -> commander.status().workers().stream()
            .anyMatch(w -> w.state() == WorkerState.RUNNING))).isTrue();
        for (int i = 0; i < 3; i++) {
          String connection = "c" + i;
          String page = call(commander, connection, "POST", "/api/pages", null).path("page")
              .asText();
          pages.put(connection, page);
          call(commander, connection, "POST", "/api/counter", Map.of("page", page));
        }
        disk.fill();

        DrainReport refused = commander.drain(Duration.ofSeconds(5), line -> { });

        assertThat(refused.refused()).as(refused.summary()).isTrue();
        assertThat(refused.committed()).isFalse();
        assertThat(refused.staying()).containsOnlyKeys("guest_c0", "guest_c1", "guest_c2");
        assertThat(refused.staying().get("guest_c0")).contains("could not freeze");
        assertThat(refused.summary()).contains("stay awake and served").contains("guest_c1")
            .contains("free space");
        assertThat(commander.admits()).isTrue();
        assertThat(commander.status().state()).isEqualTo("running");
        assertThat(home.resolve(RebootData.DIRECTORY)).doesNotExist();
        for (String connection : pages.keySet()) { // served on, from the state he had
          assertThat(call(commander, connection, "POST", "/api/counter",
              Map.of("page", pages.get(connection))).path("counter").asLong()).isEqualTo(2);
        }

        disk.empty();
        assertThat(eventually(Duration.ofSeconds(30), () -> {
          try {
            return events(commander, "drain_refused").size() == 1;
          } catch (java.io.IOException e) {
            return false;
          }
        })).isTrue();
        JsonNode event = events(commander, "drain_refused").get(0);
        assertThat(event.get("staying").has("guest_c2")).isTrue();
        assertThat(event.get("what_to_do").asText()).contains("free space");

        DrainReport carried = commander.drain(Duration.ofSeconds(5), line -> { });

        assertThat(carried.committed()).as(carried.summary()).isTrue();
        assertThat(carried.carriedUsers()).containsExactly("guest_c0", "guest_c1", "guest_c2");
        assertThat(carried.lost()).isEmpty();
      }
      try (Commander next = start(home)) {
        for (String connection : pages.keySet()) {
          assertThat(call(next, connection, "POST", "/api/counter",
              Map.of("page", pages.get(connection))).path("counter").asLong()).isEqualTo(3);
        }
      }
    }
  }

  static List<String> names(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false)
        .map(JsonNode::asText).toList();
  }
}
