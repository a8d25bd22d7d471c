package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.Freezer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's finding 6: a frozen user whose parcel no worker finds. Before, every request of his
 * got "500 this user's state is missing" at once, for ever. Now the request is routed again within
 * its hold (a parcel a drain is still writing turns up), then he is forgotten, named lost in a
 * {@code repair} event, and told so: his next request starts afresh.
 */
@Timeout(180)
class MissingParcelTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  @Test
  void aParcelMissingForAWholeHoldForgetsTheUserByNameAndHisNextRequestStartsAfresh()
      throws Exception {
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        "dev.cryo.demo.DemoApplication").workers(2).workerHeapBytes(128L * 1024 * 1024)
        .hold(Duration.ofSeconds(2)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2)).isTrue();
      String page = JSON.readTree(send(commander, "POST", "/api/pages", null).body())
          .path("page").asText();
      send(commander, "POST", "/api/counter", Map.of("page", page));
      assertThat(commander.move("guest_c1").moved()).isTrue(); // frozen, bound for the other
      assertThat(commander.routing().locate("guest_c1")).isInstanceOf(Location.Frozen.class);
      Path folder = new Freezer(home.resolve(Commander.FREEZER)).folder("guest_c1");
      try (Stream<Path> files = Files.list(folder)) {
        for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".parcel"))
            .toList()) {
          Files.delete(file);
        }
      }

      Reply missing = send(commander, "POST", "/api/counter", Map.of("page", page));

      assertThat(missing.status()).isEqualTo(503);
      assertThat(new String(missing.body(), StandardCharsets.UTF_8))
          .contains("could not be found", "your next request starts afresh");
      List<JsonNode> repairs = events(commander, "repair");
      assertThat(repairs).singleElement().satisfies(repair -> {
        assertThat(repair.path("kind").asText()).isEqualTo("missing_parcel");
        assertThat(repair.path("lost").toString()).contains("guest_c1");
      });
      Reply afresh = send(commander, "POST", "/api/pages", null);
      assertThat(afresh.status()).isEqualTo(200);
    }
  }

  private static Reply send(Commander commander, String method, String path, Object body)
      throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    return commander.serve(new Request("c1", method, path, "", headers, bytes));
  }
}
