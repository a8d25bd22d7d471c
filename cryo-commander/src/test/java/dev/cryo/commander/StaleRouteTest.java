package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's finding 1, end to end on real workers: a request's routing is decided (he lives on
 * A), then a move freezes him on A before its call is sent. Before the fence the call reached A
 * with no verdict and A made him anew, empty — his counter started again at 1 while his real state
 * waited in the freezer, and his next request woke that on B: two live copies. With the fence, A
 * refuses the call's stale grant, and the commander routes it again within the hold: it wakes him
 * on B with everything he had.
 */
@Timeout(180)
class StaleRouteTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  @Test
  void aCallRoutedBeforeAMoveFrozeHimIsRoutedAgainAndNeverMakesASecondCopy() throws Exception {
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        "dev.cryo.demo.DemoApplication").workers(2).workerHeapBytes(128L * 1024 * 1024).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2)).isTrue();
      String page = call(commander, "POST", "/api/pages", null).path("page").asText();
      call(commander, "POST", "/api/counter", Map.of("page", page));
      JsonNode second = call(commander, "POST", "/api/counter", Map.of("page", page));
      String from = second.path("worker").asText();

      AtomicReference<MoveOutcome> moved = new AtomicReference<>();
      commander.dispatcher().beforeSend((user, worker) -> {
        if (moved.get() == null && "guest_c1".equals(user) && from.equals(worker)) {
          moved.set(commander.move(user)); // his routing said A; he is frozen there now
        }
      });
      JsonNode third = call(commander, "POST", "/api/counter", Map.of("page", page));

      assertThat(moved.get().moved()).as(moved.get().message()).isTrue();
      assertThat(third.path("counter").asInt()).as("his counter, not a new copy's").isEqualTo(3);
      assertThat(third.path("worker").asText()).isEqualTo(moved.get().to());
      assertThat(commander.routing().usersOn(from)).doesNotContain("guest_c1");
      assertThat(events(commander, "repair")).isEmpty();
      assertThat(events(commander, "anomaly")).isEmpty();
      List<JsonNode> births = events(commander, "fold").stream()
          .filter(e -> e.path("kind").asText().equals("new_user")
              && e.path("worker").asText().equals(from) && e.path("user").asText()
              .equals("guest_c1")).toList();
      assertThat(births).as("born once on A, never again").hasSize(1);
    }
  }

  private static JsonNode call(Commander commander, String method, String path, Object body)
      throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    Reply reply = commander.serve(new Request("c1", method, path, "", headers, bytes));
    assertThat(reply.status()).as("%s %s: %s", method, path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }
}
