package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.commander.JournalReplay;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code cryo serve} killed with SIGKILL, and the next one on the same run directory.
 *
 * <p>Test 2: killed at each step of a drain (the drain pauses there by fault injection, then the
 * test sends a real SIGKILL): after {@code begun} (nothing frozen by the drain yet) and after
 * {@code first-quit} (one worker's users frozen, the other's not) the journal brings back the users
 * that were frozen and the workers, losing their commander, freeze the others, who come back from
 * those parcels; after {@code item} (the commander's item written, not renamed) and after
 * {@code rename} (committed) everyone comes back from the reboot data.
 *
 * <p>Test 3: killed under load, with no drain, and the next run started at once: the users frozen
 * before come back with their cookies and state, and so do the awake ones, each with every
 * counted click acknowledged before the kill (and at most the one in flight); nobody is lost.
 */
class ServeCrashTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int USERS = 12;

  @TempDir Path scratch;
  @TempDir static Path seedScratch;
  private static Path seed;
  private static List<Tab> seeded;

  /**
   * The users, made once: {@value #USERS} users each logged in as {@code u<i>x} with a page, two
   * counts and a note, carried by a drain into reboot data that each test copies: in its run they
   * all start frozen (HTTP alone cannot freeze a user: a move wakes him on his new worker at once).
   */
  @BeforeAll
  static void seed() throws Exception {
    seed = seedScratch.resolve("home");
    seeded = new ArrayList<>();
    try (HttpClient http = HttpClient.newHttpClient()) {
      ServeRun run = ServeRun.serving(seed, "--workers", "1");
      try {
        for (int i = 0; i < USERS; i++) {
          DemoClient client = new DemoClient(http, run.base());
          String page = client.openPage();
          String user = "u" + i + "x";
          assertThat(client.post("/api/login", Map.of("user", user, "page", page)).status())
              .isEqualTo(200);
          for (int n = 0; n < 2; n++) {
            assertThat(client.post("/api/counter", Map.of("page", page)).status())
                .isEqualTo(200);
          }
          assertThat(client.post("/api/notes", Map.of("page", page, "text", "note of " + user))
              .status()).isEqualTo(200);
          ObjectNode state = state(client, page);
          state.remove("worker");
          seeded.add(new Tab(client, page, user, state, null, true));
        }
        ChildCryo stop = ChildCryo.start(seedScratch, "stop", "--home", seed.toString());
        try {
          assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
        } finally {
          stop.close();
        }
        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
      } finally {
        run.close();
      }
    }
    assertThat(seed.resolve("reboot")).isDirectory();
  }

  /** A copy of the seed's run directory: its reboot data and its ended run.json. */
  private Path home() throws Exception {
    Path home = scratch.resolve("home");
    try (Stream<Path> walk = Files.walk(seed)) {
      for (Path from : walk.toList()) {
        Path to = home.resolve(seed.relativize(from).toString());
        String name = from.getFileName().toString();
        if (name.equals(".lock") || name.equals("sockets")
            || seed.relativize(from).startsWith("sockets")) {
          continue;
        }
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return home;
  }

  /** One user: his browser, page, name, the state his page showed, and where he was. */
  private record Tab(DemoClient client, String page, String user, JsonNode state, String worker,
      boolean frozen) {}

  @ParameterizedTest(name = "kill -9 after {0}")
  @ValueSource(strings = {"begun", "first-quit", "item", "rename"})
  void aCommanderKilledAtEachStepOfADrainLosesOnlyWhomItHadNotFrozen(String step)
      throws Exception {
    Path home = home();
    try (HttpClient http = HttpClient.newHttpClient()) {
      ServeRun run = ServeRun.serving(home, List.of("-Dcryo.drain.pauseAfter=" + step),
          "--workers", "2");
      List<Tab> tabs;
      List<ProcessHandle> workers;
      try {
        tabs = users(http, run);
        if (step.equals("first-quit")) { // else the step is no different from another
          assertThat(tabs).anyMatch(tab -> "main_0001".equals(tab.worker()))
              .anyMatch(tab -> "main_0002".equals(tab.worker()));
        }
        awaitJournal(home, tabs);
        workers = workers(run);
        ChildCryo stop = ChildCryo.start(scratch, "stop", "--home", home.toString());
        try {
          assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
        } finally {
          stop.close();
        }
        Poll.until("the drain pauses after " + step, () -> run.err().contains(
            "drain paused after " + step));
        ChildCryo.kill("KILL", run.process().pid());
        for (ProcessHandle worker : workers) {
          Poll.until("worker " + worker.pid() + " exits", () -> !worker.isAlive());
        }
      } finally {
        run.close();
      }
      ServeRun next = ServeRun.serving(home, "--workers", "2");
      try {
        for (Tab tab : tabs) {
          assertBack(http, next, tab);
        }
        String line = switch (step) {
          case "begun", "first-quit" -> "its journal was adopted";
          case "item" -> "adopted in place";
          default -> "the reboot data";
        };
        assertThat(next.err()).contains(line);
      } finally {
        next.close();
      }
    }
  }

  @Test
  void aCommanderKilledUnderLoadBringsBackEveryUserWithEveryAcknowledgedClick()
      throws Exception {
    Path home = home();
    try (HttpClient http = HttpClient.newHttpClient()) {
      ServeRun run = ServeRun.serving(home, "--workers", "2");
      List<Tab> tabs;
      List<ProcessHandle> workers;
      Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>();
      try {
        tabs = users(http, run);
        awaitJournal(home, tabs);
        workers = workers(run);
        AtomicBoolean loading = new AtomicBoolean(true);
        AtomicInteger served = new AtomicInteger();
        List<Thread> load = new ArrayList<>();
        for (Tab tab : tabs) {
          if (!tab.frozen()) { // the awake keep working until the kill
            DemoClient client = new DemoClient(http, run.base());
            client.useCookie(tab.client().cookie());
            AtomicLong counter = new AtomicLong(tab.state().path("counter").asLong());
            acknowledged.put(tab.user(), counter);
            load.add(Thread.ofVirtual().start(() -> {
              while (loading.get()) {
                try {
                  DemoClient.Answer answer = client.post("/api/counter",
                      Map.of("page", tab.page()));
                  if (answer.status() == 200) {
                    counter.set(answer.number("counter"));
                    served.incrementAndGet();
                  }
                } catch (Exception e) {
                  return; // the commander is gone
                }
              }
            }));
          }
        }
        Poll.until("the load is served", () -> served.get() > 20);

        ChildCryo.kill("KILL", run.process().pid());
        // Dead before the close below looks for its descendants: until then its workers are
        // still its children, and the close would kill them in the middle of their freeze.
        run.process().waitFor();

        loading.set(false);
        for (Thread thread : load) {
          thread.join();
        }
      } finally {
        run.close(); // the commander only: its workers, orphans, freeze their users meanwhile
      }
      ServeRun next = ServeRun.serving(home, "--workers", "2"); // at once: it waits for them
      try {
        for (ProcessHandle worker : workers) { // ended (its lock went with it), maybe not reaped
          Poll.until("worker " + worker.pid() + " of the killed run exits", () -> !worker.isAlive());
        }
        long awake = tabs.stream().filter(tab -> !tab.frozen()).count();
        assertThat(next.err()).contains("its journal was adopted").contains(
            (USERS - awake) + " frozen users come back; " + awake + " users that were awake, and"
                + " 0 born after its last record, come back from their newest parcel",
            "0 users that were awake left no parcel");
        for (Tab tab : tabs) {
          if (!tab.frozen()) {
            DemoClient client = new DemoClient(http, next.base());
            client.useCookie(tab.client().cookie());
            long last = acknowledged.get(tab.user()).get();
            assertThat(client.get("/api/state?page=" + tab.page()).number("counter"))
                .as("%s's counter: every click acknowledged before the kill, at most one more",
                    tab.user())
                .isBetween(last, last + 1);
          }
        }
        // status.json is rewritten on the run's tick: read until it shows the woken users.
        Poll.until("cryo status shows the awake users woken and nobody lost", () -> {
          try (ChildCryo status = ChildCryo.start(scratch, "status", "--home", home.toString(),
              "--json")) {
            assertThat(status.exitCode()).as(status.err()).isEqualTo(0);
            JsonNode json = JSON.readTree(status.out());
            assertThat(json.path("users").path("lost").asLong()).isEqualTo(0);
            return json.path("users").path("frozen").asLong() == USERS - awake;
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
        for (Tab tab : tabs) {
          if (tab.frozen()) {
            assertBack(http, next, tab);
          }
        }
      } finally {
        next.close();
      }
    }
  }

  /**
   * The seeded users on {@code run}, all frozen at its start: a third are woken where placement
   * puts them, a third woken and moved to the other worker (a move wakes him there), a third left
   * frozen.
   */
  private static List<Tab> users(HttpClient http, ServeRun run) throws Exception {
    List<Tab> tabs = new ArrayList<>();
    for (int i = 0; i < USERS; i++) {
      Tab seededTab = seeded.get(i);
      DemoClient client = new DemoClient(http, run.base());
      client.useCookie(seededTab.client().cookie());
      boolean frozen = i % 3 == 2;
      String worker = null;
      if (!frozen) {
        ObjectNode state = state(client, seededTab.page()); // wakes him
        if (i % 3 == 1) {
          assertThat(client.post("/api/move", Map.of()).status()).isEqualTo(200);
          state = state(client, seededTab.page());
        }
        worker = state.remove("worker").asText();
        assertThat(state).as(seededTab.user()).isEqualTo(seededTab.state());
      }
      tabs.add(new Tab(client, seededTab.page(), seededTab.user(), seededTab.state(), worker,
          frozen));
    }
    return tabs;
  }

  private static ObjectNode state(DemoClient client, String page) throws Exception {
    DemoClient.Answer answer = client.get("/api/state?page=" + page);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return (ObjectNode) answer.json();
  }

  /** Waits until the journal on disk shows every user where he is. */
  private static void awaitJournal(Path home, List<Tab> tabs) throws InterruptedException {
    List<String> frozen = tabs.stream().filter(Tab::frozen).map(Tab::user).toList();
    List<String> awake = tabs.stream().filter(tab -> !tab.frozen()).map(Tab::user).toList();
    Poll.until("the journal shows " + frozen + " frozen and " + awake + " awake", () -> {
      try {
        JournalReplay replay = JournalReplay.read(home.resolve("journal"));
        return replay.frozen().equals(frozen.stream().sorted().toList())
            && replay.awake().equals(awake.stream().sorted().toList());
      } catch (java.io.IOException e) {
        return false;
      }
    });
  }

  private static List<ProcessHandle> workers(ServeRun run) {
    List<ProcessHandle> workers = run.workerProcesses();
    assertThat(workers).hasSize(2);
    return workers;
  }

  /** His cookie on the new run: his state as it was ({@code back}), or not his any more. */
  private static void assertBack(HttpClient http, ServeRun next, Tab tab) throws Exception {
    DemoClient client = new DemoClient(http, next.base());
    client.useCookie(tab.client().cookie());
    DemoClient.Answer answer = client.get("/api/state?page=" + tab.page());
    for (int retry = 0; answer.status() == 503 && retry < 5; retry++) {
      answer = client.get("/api/state?page=" + tab.page()); // Retry-After: the run is starting
    }
    assertThat(answer.status()).as("%s comes back: %s", tab.user(), answer.text())
        .isEqualTo(200);
    ObjectNode state = (ObjectNode) answer.json();
    state.remove("worker");
    assertThat(state).as("%s's state", tab.user()).isEqualTo(tab.state());
    assertThat(client.cookie()).isEqualTo(tab.client().cookie());
  }
}
