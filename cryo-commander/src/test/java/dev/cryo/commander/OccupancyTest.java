package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.gone;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The occupancy check over real worker JVMs: a worker whose heap is filled above 95 % by ballast
 * is replaced without a reload (its users keep their state, no request fails); a group grown past
 * {@code --workers} by moves shrinks back to its reception once the users of its spare workers fit
 * on it (the reception never closed, no worker closed younger than the minimum age, a worker whose
 * users do not fit kept, the closed workers' users woken with their state).
 */
@Timeout(300)
class OccupancyTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration AGE = Duration.ofSeconds(15);

  @TempDir
  Path home;

  private Commander start(int maxUsersPerWorker, long heapMib, List<String> gc,
      Duration heartbeat) {
    return Commander.start(CommanderConfig.builder(home, BallastApplication.class.getName())
        .workers(1).maxWorkers(4).maxUsersPerWorker(maxUsersPerWorker)
        .workerHeapBytes(heapMib * 1024 * 1024)
        .workerCommand(WorkerCommand.jvm(WorkerCommand.WORKER_MAIN,
            System.getProperty("java.class.path"), java.util.stream.Stream.concat(gc.stream(),
                java.util.stream.Stream.of("-XX:TieredStopAtLevel=1")).toList()))
        .heartbeat(heartbeat)
        .hold(Duration.ofSeconds(60)) // a loaded machine: a quit may take a while
        .occupancy(Occupancy.DEFAULTS.withCheckInterval(Duration.ofSeconds(1))
            .withMinimumAge(AGE))
        .build());
  }

  @Test
  void aWorkerWhoseHeapStaysFullIsReplacedAndItsUsersKeepTheirState() throws Exception {
    try (Commander commander = start(Integer.MAX_VALUE, 128,
        List.of("-XX:+UseG1GC", "-XX:G1HeapRegionSize=1m",
            "-XX:G1ReservePercent=0"), Duration.ofSeconds(3))) {
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander).size() == 1))
          .isTrue();
      String old = running(commander).get(0).name();
      long oldPid = running(commander).get(0).pid();
      Map<String, String> pages = new LinkedHashMap<>();
      for (String connection : List.of("c1", "c2", "c3", "c4")) {
        String page = call(commander, connection, "POST", "/api/pages", null).path("page")
            .asText();
        pages.put(connection, page);
        call(commander, connection, "POST", "/api/counter", Map.of("page", page));
        call(commander, connection, "POST", "/api/notes", Map.of("page", page, "text",
            "note of " + connection));
      }
      call(commander, "c4", "POST", "/api/login", Map.of("user", "anna"));
      Map<String, JsonNode> before = new LinkedHashMap<>();
      pages.forEach((connection, page) -> before.put(connection, state(commander, connection,
          page)));

      AtomicBoolean loading = new AtomicBoolean(true);
      List<Integer> statuses = new CopyOnWriteArrayList<>();
      List<Integer> counters = new CopyOnWriteArrayList<>();
      Thread load = Thread.ofVirtual().start(() -> {
        while (loading.get()) {
          try {
            Reply reply = send(commander, "c3", "POST", "/api/counter",
                Map.of("page", pages.get("c3")));
            statuses.add(reply.status());
            if (reply.status() == 200) {
              counters.add(JSON.readTree(reply.body()).path("counter").asInt());
            }
          } catch (Exception e) {
            statuses.add(-1);
          }
        }
      });
      JsonNode ballast = call(commander, "c1", "POST", "/api/ballast", Map.of("share", 0.96));
      assertThat(ballast.path("used").asDouble() / ballast.path("max").asDouble())
          .as("ballast %s", ballast).isGreaterThan(OccupancyCheck.RESTART_SHARE);

      assertThat(eventually(Duration.ofSeconds(150),
          () -> FakeWorkers.count(commander, "replaced") > 0)).as("the full worker is replaced").isTrue();
      loading.set(false);
      load.join();

      JsonNode restart = events(commander, "occupancy_restart").get(0);
      assertThat(restart.path("worker").asText()).isEqualTo(old);
      assertThat(restart.path("full_photos").asInt()).isGreaterThanOrEqualTo(3);
      assertThat(events(commander, "reload_begun").get(0).path("why").asText())
          .isEqualTo("heap");
      JsonNode replaced = events(commander, "replaced").get(0);
      assertThat(replaced.path("old").asText()).isEqualTo(old);
      assertThat(replaced.path("lost")).isEmpty();
      String next = replaced.path("new").asText();
      assertThat(gone(oldPid) || eventually(Duration.ofSeconds(30), () -> gone(oldPid))).isTrue();
      assertThat(statuses).as("replies during the replacement").isNotEmpty().containsOnly(200);
      for (int i = 1; i < counters.size(); i++) {
        assertThat(counters.get(i)).isEqualTo(counters.get(i - 1) + 1); // nothing lost, no repeat
      }
      // The worker's own heap valve (past 80 % after a collection) froze its users before the
      // check replaced it: they woke on a new worker or on its replacement, never on it again.
      List<String> alive = running(commander).stream().map(Status.WorkerStatus::name).toList();
      for (Map.Entry<String, String> tab : pages.entrySet()) {
        JsonNode after = state(commander, tab.getKey(), tab.getValue());
        assertThat(after.path("worker").asText()).isNotEqualTo(old).isIn(alive);
        if (tab.getKey().equals("c3")) {
          assertThat(after.path("counter").asInt()).isEqualTo(1 + counters.size());
          assertThat(after.path("notes")).isEqualTo(before.get("c3").path("notes"));
        } else {
          assertThat(kept(after)).as(tab.getKey()).isEqualTo(kept(before.get(tab.getKey())));
        }
      }
      assertThat(alive).contains(next).doesNotContain(old);
      assertThat(events(commander, "occupancy_restart")).as("the new worker, without ballast, is"
          + " not replaced").hasSize(1);
      assertThat(commander.status().anomalies()).isZero();
      assertThat(commander.status().usersLost()).isZero();
    }
  }

  @Test
  void aGroupGrownPastItsWorkersShrinksBackToItsReception() throws Exception {
    try (Commander commander = start(2, 64, List.of("-XX:+UseSerialGC"),
        Duration.ofSeconds(1))) {
      assertThat(eventually(Duration.ofSeconds(90), () -> running(commander).size() == 1))
          .isTrue();
      String reception = running(commander).get(0).name();
      long receptionPid = running(commander).get(0).pid();
      Map<String, String> pages = new LinkedHashMap<>();
      // Grown by moves (two users a worker): u1 and u2 on a new worker, then u3 on a third. Each
      // is born on the reception and moved before the next is born: the cap applies to new users
      // too, so a third newcomer would be born on a new worker instead.
      String second = null;
      String third = null;
      for (String connection : List.of("c1", "c2", "c3")) {
        String page = call(commander, connection, "POST", "/api/pages", null).path("page")
            .asText();
        pages.put(connection, page);
        call(commander, connection, "POST", "/api/counter", Map.of("page", page));
        call(commander, connection, "POST", "/api/notes", Map.of("page", page, "text",
            "note of " + connection));
        call(commander, connection, "POST", "/api/login", Map.of("user", "u" + connection));
        switch (connection) {
          case "c1" -> second = moved(commander, "uc1", null);
          case "c2" -> assertThat(moved(commander, "uc2", second)).isEqualTo(second);
          default -> third = moved(commander, "uc3", null);
        }
      }
      assertThat(third).isNotIn(reception, second);
      Map<String, JsonNode> before = new LinkedHashMap<>();
      pages.forEach((connection, page) -> before.put(connection, state(commander, connection,
          page)));
      assertThat(before.get("c3").path("worker").asText()).isEqualTo(third);
      assertThat(running(commander)).hasSize(3);

      // Both spare workers' users fit on the empty reception: the group shrinks back to it.
      assertThat(eventually(Duration.ofSeconds(120), () -> running(commander).size() == 1))
          .as("the group shrinks back to --workers").isTrue();
      assertThat(running(commander).get(0).name()).isEqualTo(reception);
      assertThat(gone(receptionPid)).isFalse();
      List<JsonNode> closes = events(commander, "occupancy_close");
      assertThat(closes).extracting(close -> close.path("worker").asText())
          .containsExactlyInAnyOrder(second, third);
      for (JsonNode close : closes) {
        String worker = close.path("worker").asText();
        assertThat(close.path("age_ms").asLong()).isGreaterThanOrEqualTo(AGE.toMillis());
        Instant presented = Instant.parse(events(commander, "worker_presented").stream()
            .filter(e -> e.path("worker").asText().equals(worker)).findFirst().orElseThrow()
            .path("at").asText());
        Instant quit = Instant.parse(events(commander, "quit_begun").stream()
            .filter(e -> e.path("worker").asText().equals(worker)).findFirst().orElseThrow()
            .path("at").asText());
        assertThat(Duration.between(presented, quit)).as("the age of %s when closed", worker)
            .isGreaterThanOrEqualTo(AGE);
      }
      assertThat(events(commander, "quit_begun")).extracting(e -> e.path("worker").asText())
          .doesNotContain(reception);
      assertThat(events(commander, "shrunk")).allSatisfy(shrunk ->
          assertThat(shrunk.path("lost")).isEmpty());

      // The closed workers' users wake with their state: two on the reception, the third on a
      // new worker (two users a worker), which is then kept: its user does not fit elsewhere.
      for (String connection : pages.keySet()) {
        assertThat(kept(state(commander, connection, pages.get(connection)))).as(connection)
            .isEqualTo(kept(before.get(connection)));
      }
      assertThat(running(commander)).hasSize(2);
      String fourth = running(commander).stream().map(Status.WorkerStatus::name)
          .filter(name -> !name.equals(reception)).findFirst().orElseThrow();
      long closesBefore = events(commander, "occupancy_close").size();
      Thread.sleep(AGE.plusSeconds(5).toMillis()); // the time it would take to close it, observed
      assertThat(events(commander, "occupancy_close")).hasSize((int) closesBefore);
      assertThat(running(commander)).extracting(Status.WorkerStatus::name)
          .containsExactlyInAnyOrder(reception, fourth);
      assertThat(commander.status().anomalies()).isZero();
      assertThat(commander.status().usersLost()).isZero();
    }
  }

  /** Moves {@code user}, wakes him where he went, and checks it is {@code expected} when given. */
  private static String moved(Commander commander, String user, String expected)
      throws Exception {
    MoveOutcome outcome = commander.move(user);
    assertThat(outcome.moved()).as(outcome.message()).isTrue();
    if (expected != null) {
      assertThat(outcome.to()).isEqualTo(expected);
    }
    return outcome.to();
  }

  private static List<Status.WorkerStatus> running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).toList();
  }

  /** The page's state as the demo shows it, with the worker that served it. */
  private static ObjectNode state(Commander commander, String connection, String page) {
    try {
      return (ObjectNode) call(commander, connection, "GET", "/api/state", null, "page=" + page);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** {@code state} without the worker that served it. */
  private static ObjectNode kept(JsonNode state) {
    ObjectNode copy = state.deepCopy();
    copy.remove("worker");
    return copy;
  }

  private static JsonNode call(Commander commander, String connection, String method,
      String path, Object body) throws Exception {
    return call(commander, connection, method, path, body, "");
  }

  private static JsonNode call(Commander commander, String connection, String method,
      String path, Object body, String query) throws Exception {
    Reply reply = send(commander, connection, method, path, body, query);
    assertThat(reply.status()).as("%s %s: %s", method, path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static Reply send(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    return send(commander, connection, method, path, body, "");
  }

  private static Reply send(Commander commander, String connection, String method, String path,
      Object body, String query) throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    return commander.serve(new Request(connection, method, path, query, headers, bytes));
  }
}
