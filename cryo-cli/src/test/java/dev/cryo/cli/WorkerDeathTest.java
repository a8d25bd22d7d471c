package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.MoveOutcome;
import dev.cryo.commander.Status;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test 2 of the runtime: {@code kill -9} of a worker JVM under load, through HTTP, with no
 * periodic checkpoint. Its awake users who logged in there come back by name from the checkpoint
 * their login forced (a login here is durable), without the click they made after it; its
 * guests of the load are lost by name; its frozen users keep their counters; the front answers
 * only 200, 404, 502 or 503 and recovers, and a new reception appears when the dead one was the
 * reception.
 */
class WorkerDeathTest {

  @TempDir Path scratch;

  @Test
  void aKilledReceptionLosesItsAwakeUsersByNameAndKeepsItsFrozenOnes() throws Exception {
    CommanderConfig config = CommanderConfig.builder(scratch.resolve("home"),
            ServeCommand.DEMO).workers(2).maxWorkers(3).workerHeapBytes(128L << 20)
        .heartbeat(Duration.ofSeconds(1)).build();
    Files.createDirectories(config.home());
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      String reception = receptionOf(commander.status());

      // Six users on the reception: three stay awake there, three are frozen by a move.
      Map<String, DemoClient> tabs = new HashMap<>();
      Map<String, String> pages = new HashMap<>();
      Map<String, Long> counters = new ConcurrentHashMap<>();
      for (int i = 0; i < 6; i++) {
        String user = "victim-" + i;
        DemoClient tab = new DemoClient(http, base);
        String page = tab.openPage();
        tab.post("/api/login", Map.of("user", user));
        Answer counted = tab.post("/api/counter", Map.of("page", page));
        assertThat(counted.field("worker")).isEqualTo(reception);
        tabs.put(user, tab);
        pages.put(user, page);
        counters.put(user, counted.number("counter"));
      }
      Set<String> awake = new TreeSet<>(List.of("victim-0", "victim-1", "victim-2"));
      for (String user : List.of("victim-3", "victim-4", "victim-5")) {
        MoveOutcome moved = commander.move(user); // frozen now; his next request wakes him
        assertThat(moved.refusal()).as(moved.message()).isNull();
      }

      // Load from users of their own while the reception dies.
      AtomicBoolean loading = new AtomicBoolean(true);
      Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
      List<Future<?>> load = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        load.add(threads.submit(() -> {
          DemoClient tab = new DemoClient(http, base);
          String page = null;
          while (loading.get()) {
            if (page == null) { // a lost guest starts again, with the new cookie cryo gives
              Answer opened = tab.post("/api/pages", Map.of());
              statuses.merge(opened.status(), 1, Integer::sum);
              page = opened.status() == 200 ? opened.field("page") : null;
              continue;
            }
            Answer answer = tab.post("/api/counter", Map.of("page", page));
            statuses.merge(answer.status(), 1, Integer::sum);
            if (answer.status() != 200) {
              page = null;
            }
          }
          return null;
        }));
      }
      long pid = pidOf(commander.status(), reception);
      ChildCryo.kill("KILL", pid);
      Poll.until("the commander saw " + reception + " die", () -> commander.status().workers()
          .stream().noneMatch(worker -> worker.name().equals(reception)));
      Poll.until("a new reception", () -> {
        String now = receptionOf(commander.status());
        return now != null && !now.equals(reception);
      });
      Thread.sleep(500); // the load goes on a little against the survivors
      loading.set(false);
      for (Future<?> future : load) {
        future.get();
      }

      // 404: a lost guest's page, asked for once more by his tab, under the new cookie cryo gave.
      assertThat(statuses.keySet()).as("statuses under load: " + statuses)
          .isSubsetOf(200, 404, 502, 503).contains(200);
      JsonNode died = lastEvent(commander.eventLog(), "worker_died");
      assertThat(died.path("worker").asText()).isEqualTo(reception);
      Set<String> lost = new TreeSet<>();
      died.path("lost").forEach(user -> lost.add(user.asText()));
      Set<String> restored = new TreeSet<>();
      died.path("restored").forEach(user -> restored.add(user.asText()));
      assertThat(restored).as("restored by name from their login's checkpoint")
          .containsExactlyInAnyOrderElementsOf(awake);
      assertThat(lost).as("lost by name: the load's guests it held, if any")
          .doesNotContainAnyElementsOf(awake).doesNotContain("victim-3", "victim-4", "victim-5");
      assertThat(commander.status().usersLost()).isGreaterThanOrEqualTo(lost.size());

      for (String user : List.of("victim-3", "victim-4", "victim-5")) {
        Answer woken = tabs.get(user).post("/api/counter", Map.of("page", pages.get(user)));
        assertThat(woken.status()).as(woken.text()).isEqualTo(200);
        assertThat(woken.field("user")).isEqualTo(user);
        assertThat(woken.number("counter")).as(user + " keeps his counter")
            .isEqualTo(counters.get(user) + 1);
        assertThat(woken.field("worker")).isNotEqualTo(reception);
      }
      for (String user : awake) { // back as his login left him: the click after it is lost
        Answer after = tabs.get(user).post("/api/counter", Map.of("page", pages.get(user)));
        assertThat(after.status()).as(after.text()).isEqualTo(200);
        assertThat(after.field("user")).isEqualTo(user);
        assertThat(after.number("counter")).as(user + ", his click after the login lost")
            .isEqualTo(counters.get(user));
        assertThat(after.field("worker")).isNotEqualTo(reception);
      }
    }
  }

  /**
   * #22's wake window: a user woken on a worker that is killed before it wrote any parcel of his
   * new stay was lost, his wake having consumed the parcel it read. The wake now sets it aside,
   * and the commander puts it back: he comes back named {@code restored}, as his move left him,
   * without the click he made after his wake.
   */
  @Test
  void aUserWokenOnAWorkerKilledBeforeItWroteHimComesBackFromWhatHisWakeRead() throws Exception {
    CommanderConfig config = CommanderConfig.builder(scratch.resolve("home"),
            ServeCommand.DEMO).workers(2).maxWorkers(2).workerHeapBytes(128L << 20)
        .heartbeat(Duration.ofSeconds(1)).build();
    Files.createDirectories(config.home());
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      DemoClient tab = new DemoClient(http, base);
      String page = tab.openPage();
      assertThat(tab.post("/api/login", Map.of("user", "moved")).status()).isEqualTo(200);
      tab.post("/api/counter", Map.of("page", page));
      String from = tab.post("/api/counter", Map.of("page", page)).field("worker");
      MoveOutcome moved = commander.move("moved"); // frozen at 2; his next request wakes him
      assertThat(moved.refusal()).as(moved.message()).isNull();
      Answer woken = tab.post("/api/counter", Map.of("page", page));
      assertThat(woken.number("counter")).isEqualTo(3);
      String there = woken.field("worker");
      assertThat(there).isNotEqualTo(from);

      ChildCryo.kill("KILL", pidOf(commander.status(), there));
      Poll.until("the commander saw " + there + " die", () -> commander.status().workers()
          .stream().noneMatch(worker -> worker.name().equals(there)));
      JsonNode died = lastEvent(commander.eventLog(), "worker_died");
      assertThat(died.path("restored").toString()).contains("\"moved\"");

      Answer after = tab.post("/api/counter", Map.of("page", page));
      assertThat(after.status()).as(after.text()).isEqualTo(200);
      assertThat(after.field("user")).isEqualTo("moved");
      assertThat(after.number("counter")).as("back as his move left him, the click after his"
          + " wake lost").isEqualTo(3);
    }
  }

  private static String receptionOf(Status status) {
    return status.workers().stream().filter(Status.WorkerStatus::reception)
        .map(Status.WorkerStatus::name).findFirst().orElse(null);
  }

  static long pidOf(Status status, String worker) {
    return status.workers().stream().filter(row -> row.name().equals(worker))
        .mapToLong(Status.WorkerStatus::pid).findFirst().orElseThrow();
  }

  /** The last event of {@code type} in the event log {@code log}. */
  static JsonNode lastEvent(Path log, String type) throws Exception {
    JsonNode found = null;
    for (String line : Files.readAllLines(log)) {
      JsonNode event = DemoClient.JSON.readTree(line);
      if (event.path("event").asText().equals(type)) {
        found = event;
      }
    }
    assertThat(found).as("a " + type + " event").isNotNull();
    return found;
  }
}
