package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.kill9;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commander over the real worker (dev.cryo.worker.WorkerMain, the default worker command)
 * serving the demo: births, counters, a move through the move route, a login, and the kill -9 of
 * a worker holding an awake user and a frozen one.
 */
@Timeout(180)
class RealWorkerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  private Commander start(int workers) {
    return Commander.start(CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(workers).workerHeapBytes(128L * 1024 * 1024).build());
  }

  private static JsonNode call(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    Reply reply = send(commander, connection, method, path, body);
    assertThat(reply.status()).as("%s %s: %s", method, path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static Reply send(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    return commander.serve(new Request(connection, method, path, "", headers, bytes));
  }

  /**
   * While the sink says no page is bound to a socket, a click's two pushes (to the user, to the
   * page) are answered by his worker and never reach the sink; once one may be, they are relayed.
   */
  @Test
  void aClickPushesThroughTheSinkOnlyWhileASocketMayBeBound() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean bound = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger delivered =
        new java.util.concurrent.atomic.AtomicInteger();
    try (Commander commander = start(1)) {
      commander.pushSink(new PushSink() {
        @Override
        public boolean deliver(String connection, String page, byte[] data) {
          delivered.incrementAndGet();
          return false;
        }

        @Override
        public boolean anyBound() {
          return bound.get();
        }
      });
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 1)).isTrue();
      String page = call(commander, "c1", "POST", "/api/pages", null).path("page").asText();
      for (int i = 1; i <= 3; i++) {
        assertThat(call(commander, "c1", "POST", "/api/counter", Map.of("page", page))
            .path("counter").asInt()).isEqualTo(i);
      }
      assertThat(delivered).as("no push relayed while no socket is bound").hasValue(0);

      bound.set(true);
      call(commander, "c1", "POST", "/api/counter", Map.of("page", page));
      assertThat(delivered).as("the user's page and the page itself").hasValue(2);
    }
  }

  @Test
  void usersAreBornServedMovedAndLoggedInOnRealWorkers() throws Exception {
    try (Commander commander = start(2)) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String page = call(commander, "c1", "POST", "/api/pages", null).path("page").asText();
      JsonNode first = call(commander, "c1", "POST", "/api/counter", Map.of("page", page));
      JsonNode second = call(commander, "c1", "POST", "/api/counter", Map.of("page", page));
      assertThat(first.path("user").asText()).isEqualTo("guest_c1");
      assertThat(second.path("counter").asInt()).isEqualTo(2);
      assertThat(second.path("pageCounter").asInt()).isEqualTo(2);
      String from = second.path("worker").asText();

      JsonNode moved = call(commander, "c1", "POST", "/api/move", null);

      assertThat(moved.path("from").asText()).isEqualTo(from);
      String to = moved.path("to").asText();
      assertThat(to).isNotEqualTo(from);
      JsonNode third = call(commander, "c1", "POST", "/api/counter", Map.of("page", page));
      assertThat(third.path("worker").asText()).isEqualTo(to);
      assertThat(third.path("counter").asInt()).isEqualTo(3);
      assertThat(third.path("pageCounter").asInt()).isEqualTo(3);

      JsonNode login = call(commander, "c1", "POST", "/api/login", Map.of("user", "anna"));
      assertThat(login.path("user").asText()).isEqualTo("anna");
      assertThat(commander.knowsConnection("c1")).isTrue();
      JsonNode after = call(commander, "c1", "POST", "/api/counter", Map.of("page", page));
      assertThat(after.path("user").asText()).isEqualTo("anna");
      assertThat(after.path("counter").asInt()).isEqualTo(4); // the guest's counter followed
      assertThat(commander.status().anomalies()).as("anomalies: %s",
          events(commander, "anomaly")).isZero();
    }
  }

  @Test
  void aKilledWorkerLosesItsAwakeUsersByNameAndKeepsItsFrozenOnes() throws Exception {
    try (Commander commander = start(2)) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String awakePage = call(commander, "awake", "POST", "/api/pages", null).path("page")
          .asText();
      call(commander, "awake", "POST", "/api/counter", Map.of("page", awakePage));
      String frozenPage = call(commander, "frozen", "POST", "/api/pages", null).path("page")
          .asText();
      call(commander, "frozen", "POST", "/api/counter", Map.of("page", frozenPage));
      String reception = call(commander, "frozen", "POST", "/api/counter",
          Map.of("page", frozenPage)).path("worker").asText();
      MoveOutcome moved = commander.move("guest_frozen"); // frozen here, not woken yet
      assertThat(moved.moved()).as(moved.message()).isTrue();
      long pid = commander.status().workers().stream().filter(w -> w.name().equals(reception))
          .findFirst().orElseThrow().pid();

      kill9(pid);

      assertThat(eventually(Duration.ofSeconds(30), () -> !commander.knowsConnection("awake")))
          .isTrue();
      JsonNode death = events(commander, "worker_died").get(0);
      assertThat(death.path("lost")).extracting(JsonNode::asText).containsExactly("guest_awake");
      JsonNode woken = call(commander, "frozen", "POST", "/api/counter",
          Map.of("page", frozenPage));
      assertThat(woken.path("counter").asInt()).isEqualTo(3);
      assertThat(woken.path("pageCounter").asInt()).isEqualTo(3);
      assertThat(woken.path("worker").asText()).isEqualTo(moved.to());
      Reply gone = send(commander, "awake", "POST", "/api/counter", Map.of("page", awakePage));
      assertThat(gone.status()).isEqualTo(404); // a new guest: the old page is not his
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
    }
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
