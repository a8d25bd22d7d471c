package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.gone;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Commander#quitWorker} over the real worker serving the demo: the users of a quitting
 * worker are frozen, none is lost, a request sent during the quit waits and is served elsewhere
 * with the state kept, a frozen user bound for the quitting worker is bound anew, and the worker's
 * process ends, killed once it reported rather than waited for.
 */
@Timeout(240)
class QuitWorkerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  private Commander start() {
    return Commander.start(CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(2).workerHeapBytes(128L * 1024 * 1024)
        .hold(Duration.ofSeconds(60)) // a loaded machine: the quit may take a while
        .build());
  }

  private static JsonNode call(Commander commander, String connection, String path, Object body)
      throws Exception {
    Reply reply = send(commander, connection, path, body);
    assertThat(reply.status()).as("POST %s: %s", path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static Reply send(Commander commander, String connection, String path, Object body)
      throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    return commander.serve(new Request(connection, "POST", path, "", headers, bytes));
  }

  @Test
  void aQuittingWorkersUsersAreFrozenHeldAndWokenElsewhereWithTheirState() throws Exception {
    try (Commander commander = start()) {
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander) == 2)).isTrue();
      List<String> connections = List.of("c1", "c2", "c3", "c4", "c5");
      List<String> pages = new ArrayList<>();
      String reception = null;
      for (String connection : connections) {
        String page = call(commander, connection, "/api/pages", null).path("page").asText();
        pages.add(page);
        call(commander, connection, "/api/counter", Map.of("page", page));
        reception = call(commander, connection, "/api/counter", Map.of("page", page))
            .path("worker").asText();
      }
      call(commander, "c5", "/api/login", Map.of("user", "anna"));
      String first = reception;
      String second = commander.status().workers().stream().map(Status.WorkerStatus::name)
          .filter(name -> !name.equals(first)).findFirst().orElseThrow();
      // A user frozen before the quit and bound for the worker that quits: he is bound anew.
      MoveOutcome there = commander.move("guest_c1");
      assertThat(there.to()).as(there.message()).isEqualTo(second);
      assertThat(call(commander, "c1", "/api/counter", Map.of("page", pages.get(0)))
          .path("counter").asInt()).isEqualTo(3);
      MoveOutcome back = commander.move("guest_c1");
      assertThat(back.to()).as(back.message()).isEqualTo(first);
      long pid = commander.status().workers().stream().filter(w -> w.name().equals(first))
          .findFirst().orElseThrow().pid();
      // Requests sent while the quit runs: they wait and are served by another worker.
      AtomicBoolean quitting = new AtomicBoolean(true);
      List<Integer> statuses = new CopyOnWriteArrayList<>();
      List<Integer> counters = new CopyOnWriteArrayList<>();
      Thread load = Thread.ofVirtual().start(() -> {
        while (quitting.get()) {
          try {
            Reply reply = send(commander, "c2", "/api/counter", Map.of("page", pages.get(1)));
            statuses.add(reply.status());
            if (reply.status() == 200) {
              counters.add(JSON.readTree(reply.body()).path("counter").asInt());
            }
          } catch (Exception e) {
            statuses.add(-1);
          }
        }
      });

      QuitOutcome outcome = commander.quitWorker(first, Duration.ofSeconds(5));
      quitting.set(false);
      load.join();

      assertThat(outcome.quit()).as(outcome.message()).isTrue();
      assertThat(outcome.lost()).isEmpty();
      assertThat(outcome.frozen()).as(outcome.message()).isEqualTo(4); // c2, c3, c4, anna
      assertThat(gone(pid) || eventually(Duration.ofSeconds(30), () -> gone(pid))).isTrue();
      // Killed once it reported, not waited for: it never saw the end of its wire (a JVM's own
      // exit waits a third of a second for threads blocked in native code).
      assertThat(Files.readString(home.resolve("workers").resolve(first + ".log")))
          .as("the quit worker's log").contains("presented itself")
          .doesNotContain("it exits without writing anything");
      assertThat(statuses).as("replies during the quit").isNotEmpty().containsOnly(200);
      for (int i = 1; i < counters.size(); i++) {
        assertThat(counters.get(i)).isEqualTo(counters.get(i - 1) + 1); // nothing lost, no repeat
      }
      for (int i = 2; i < 4; i++) {
        JsonNode after = call(commander, connections.get(i), "/api/counter",
            Map.of("page", pages.get(i)));
        assertThat(after.path("counter").asInt()).isEqualTo(3);
        assertThat(after.path("pageCounter").asInt()).isEqualTo(3);
        assertThat(after.path("worker").asText()).isNotEqualTo(first);
      }
      JsonNode anna = call(commander, "c5", "/api/counter", Map.of("page", pages.get(4)));
      assertThat(anna.path("user").asText()).isEqualTo("anna");
      assertThat(anna.path("counter").asInt()).isEqualTo(3);
      JsonNode c1 = call(commander, "c1", "/api/counter", Map.of("page", pages.get(0)));
      assertThat(c1.path("counter").asInt()).isEqualTo(4);
      assertThat(c1.path("pageCounter").asInt()).isEqualTo(4);
      assertThat(c1.path("worker").asText()).isNotEqualTo(first);

      assertThat(events(commander, "quit_begun")).hasSize(1);
      JsonNode report = events(commander, "quit_ended").get(0);
      assertThat(report.path("frozen").asInt()).isEqualTo(4);
      // The quit's one path into the maps and the metrics: each of its freezes is a fold of its
      // own, logged before the quit's counts; no other event names them.
      List<JsonNode> log = events(commander);
      int begun = indexOf(log, "quit_begun");
      int ended = indexOf(log, "quit_ended");
      assertThat(log.subList(begun, ended)).filteredOn(e -> e.path("event").asText().equals("fold")
          && e.path("kind").asText().equals("user_frozen")
          && e.path("worker").asText().equals(first))
          .extracting(e -> e.path("user").asText())
          .containsExactlyInAnyOrder("guest_c2", "guest_c3", "guest_c4", "anna");
      assertThat(log).extracting(e -> e.path("event").asText()).doesNotContain("quit_report");
      JsonNode death = events(commander, "worker_died").stream()
          .filter(e -> e.path("worker").asText().equals(first)).findFirst().orElseThrow();
      assertThat(death.path("reason").asText()).isEqualTo(Quitter.REASON);
      assertThat(death.path("lost")).isEmpty();
      assertThat(death.path("planned").asBoolean()).as("a quit that reported is planned").isTrue();
      assertThat(commander.status().anomalies()).as("anomalies: %s",
          events(commander, "anomaly")).isZero();
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander) == 2))
          .as("a replacement starts").isTrue();
    }
  }

  @Test
  void aQuitOfNoRunningWorkerIsRefusedAndChangesNothing() throws Exception {
    try (Commander commander = start()) {
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander) >= 1)).isTrue();

      QuitOutcome outcome = commander.quitWorker("main_9999", Duration.ofSeconds(1));

      assertThat(outcome.quit()).isFalse();
      assertThat(outcome.refusal()).isEqualTo(QuitOutcome.Refusal.NOT_RUNNING);
      assertThat(outcome.message()).contains("main_9999").contains("nothing was changed");
      assertThat(events(commander, "quit_begun")).isEmpty();
    }
  }

  private static int indexOf(List<JsonNode> log, String event) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).path("event").asText().equals(event)) {
        return i;
      }
    }
    throw new AssertionError("no " + event + " in the event log");
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
