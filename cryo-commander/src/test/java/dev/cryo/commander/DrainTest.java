package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.freezer.Freezer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Commander#drain} over the real worker serving the demo, and the next start adopting the
 * reboot data: every user, awake or frozen before the drain, comes back with his state; reboot
 * data that does not read is moved aside, never wiped.
 */
@Timeout(300)
class DrainTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  private Commander start() {
    return Commander.start(CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(2).workerHeapBytes(128L * 1024 * 1024).hold(Duration.ofSeconds(60)).build());
  }

  static JsonNode call(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    Reply reply = send(commander, connection, method, path, body);
    assertThat(reply.status()).as("%s %s: %s", method, path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  static Reply send(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    String query = "";
    if (path.contains("?")) {
      query = path.substring(path.indexOf('?') + 1);
      path = path.substring(0, path.indexOf('?'));
    }
    return commander.serve(new Request(connection, method, path, query, headers, bytes));
  }

  /** The state a user's page shows, without the worker that served it. */
  static JsonNode state(Commander commander, String connection, String page) throws Exception {
    ObjectNode state = (ObjectNode) call(commander, connection, "GET", "/api/state?page=" + page,
        null);
    state.remove("worker");
    return state;
  }

  @Test
  void everyUserAwakeOrFrozenComesBackWithHisStateAfterADrainAndAStart() throws Exception {
    Map<String, String> pages = new LinkedHashMap<>();
    Map<String, JsonNode> before = new LinkedHashMap<>();
    List<String> progress = new CopyOnWriteArrayList<>();
    DrainReport report;
    try (Commander commander = start()) {
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander) == 2)).isTrue();
      for (int i = 0; i < 8; i++) {
        String connection = "c" + i;
        String page = call(commander, connection, "POST", "/api/pages", null).path("page")
            .asText();
        pages.put(connection, page);
        for (int n = 0; n <= i; n++) {
          call(commander, connection, "POST", "/api/counter", Map.of("page", page));
        }
        call(commander, connection, "POST", "/api/notes", Map.of("page", page, "text",
            "note of " + connection));
        if (i % 3 == 0) {
          call(commander, connection, "POST", "/api/login", Map.of("user", "user" + i));
        }
      }
      MoveOutcome frozenBefore = commander.move("guest_c1"); // frozen, not woken: carried too
      assertThat(frozenBefore.moved()).as(frozenBefore.message()).isTrue();
      for (String connection : pages.keySet()) {
        if (!connection.equals("c1")) {
          before.put(connection, state(commander, connection, pages.get(connection)));
        }
      }
      commander.move("guest_c2");
      before.put("c1", null); // read after the restart only: reading would wake him
      assertThat(commander.admits()).isTrue();

      report = commander.drain(Duration.ofSeconds(5), progress::add);

      assertThat(commander.admits()).isFalse();
      assertThat(send(commander, "c0", "GET", "/api/state", null).status()).isEqualTo(503);
      assertThat(commander.status().state()).isEqualTo("closed");
    }
    assertThat(report.committed()).as(report.summary()).isTrue();
    assertThat(report.carried()).isEqualTo(8);
    assertThat(report.lost()).isEmpty();
    assertThat(report.summary()).contains("8 users carried");
    assertThat(progress).isNotEmpty();
    assertThat(home.resolve(RebootData.DIRECTORY).resolve(Freezer.COMMANDER_PARCEL)).exists();
    assertThat(home.resolve("freezer")).doesNotExist();

    try (Commander next = start()) {
      assertThat(next.startLine()).contains("adopted").contains("8 users");
      assertThat(home.resolve(RebootData.DIRECTORY)).doesNotExist();
      assertThat(next.status().usersFrozen()).isEqualTo(8);
      assertThat(next.knowsConnection("c3")).isTrue();
      for (String connection : pages.keySet()) {
        JsonNode after = state(next, connection, pages.get(connection));
        if (before.get(connection) != null) {
          assertThat(after).as(connection).isEqualTo(before.get(connection));
        } else {
          assertThat(after.path("counter").asInt()).isEqualTo(2);
          assertThat(after.path("notes").get(0).asText()).isEqualTo("note of c1");
        }
      }
      assertThat(events(next, "adopted")).hasSize(1);
      assertThat(next.status().anomalies()).isZero();
    }
  }

  @Test
  void rebootDataThatDoesNotReadIsMovedAsideAndTheRunStartsEmpty() throws Exception {
    Path reboot = Files.createDirectories(home.resolve(RebootData.DIRECTORY));
    Files.createDirectories(reboot.resolve("anna"));
    Files.writeString(reboot.resolve("anna").resolve(Freezer.USER_PARCEL), "not a parcel");
    Files.writeString(reboot.resolve(Freezer.COMMANDER_PARCEL), "torn");

    try (Commander commander = start()) {
      assertThat(commander.startLine()).contains("does not read").contains("moved aside");
      List<Path> aside;
      try (var entries = Files.list(home)) {
        aside = entries.filter(p -> p.getFileName().toString()
            .startsWith(RebootData.UNREADABLE_PREFIX)).toList();
      }
      assertThat(aside).hasSize(1);
      assertThat(commander.startLine()).contains(aside.get(0).toString());
      assertThat(aside.get(0).resolve("anna").resolve(Freezer.USER_PARCEL)).hasContent(
          "not a parcel");
      assertThat(reboot).doesNotExist();
      assertThat(commander.status().usersFrozen()).isZero();
    }
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }

  static List<String> copy(List<String> list) {
    return new ArrayList<>(list);
  }
}
