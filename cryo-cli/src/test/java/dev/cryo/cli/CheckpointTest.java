package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a worker JVM whose users were checkpointed ({@code --checkpoint}): they are
 * not lost but frozen at their checkpoint, named {@code restored} in its {@code worker_died}, and
 * their next request wakes them elsewhere with the state the checkpoint held, on the same cookie
 * and page. Without checkpoints they were lost (as {@link WorkerDeathTest} shows).
 */
class CheckpointTest {

  @TempDir Path scratch;

  @Test
  void aKilledWorkersUsersComeBackFromTheirCheckpointsByName() throws Exception {
    CommanderConfig config = CommanderConfig.builder(scratch.resolve("home"),
            ServeCommand.DEMO).workers(2).maxWorkers(3).workerHeapBytes(128L << 20)
        .heartbeat(Duration.ofSeconds(1)).checkpoint(Duration.ofMillis(200)).build();
    Files.createDirectories(config.home());
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      Freezer freezer = new Freezer(config.home().resolve("freezer"));

      List<String> users = List.of("kept-0", "kept-1", "kept-2");
      DemoClient[] tabs = new DemoClient[users.size()];
      String[] pages = new String[users.size()];
      String worker = null;
      Instant[] lastWrite = new Instant[users.size()];
      for (int i = 0; i < users.size(); i++) {
        tabs[i] = new DemoClient(http, base);
        pages[i] = tabs[i].openPage();
        tabs[i].post("/api/login", Map.of("user", users.get(i)));
        Answer counted = null;
        for (int n = 0; n <= i; n++) { // counters 1, 2, 3
          lastWrite[i] = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
          counted = tabs[i].post("/api/counter", Map.of("page", pages[i]));
          assertThat(counted.status()).as(counted.text()).isEqualTo(200);
        }
        assertThat(counted.number("counter")).isEqualTo(i + 1);
        if (worker == null) {
          worker = counted.field("worker");
        }
        assertThat(counted.field("worker")).as("new users are born on the reception")
            .isEqualTo(worker);
      }
      for (int i = 0; i < users.size(); i++) { // a checkpoint newer than his last write
        String user = users.get(i);
        Instant written = lastWrite[i];
        try {
        Poll.until("a checkpoint of " + user, Duration.ofSeconds(10), () -> {
          Optional<ParcelHeader> header;
          try {
            header = freezer.userParcelHeader(user);
          } catch (java.io.IOException e) { // a write under way: asked again
            return false;
          }
          return header.isPresent()
              && ParcelHeader.CHECKPOINT_CAUSE.equals(header.get().cause())
              && !header.get().writtenAt().isBefore(written); // began after the write
        });
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + listing(config.home()));
        }
      }
      String victim = worker;

      ChildCryo.kill("KILL", WorkerDeathTest.pidOf(commander.status(), victim));
      Poll.until("the commander saw " + victim + " die", () -> commander.status().workers()
          .stream().noneMatch(row -> row.name().equals(victim)));

      JsonNode died = WorkerDeathTest.lastEvent(commander.eventLog(), "worker_died");
      assertThat(died.path("worker").asText()).isEqualTo(victim);
      Set<String> restored = new TreeSet<>();
      died.path("restored").forEach(user -> restored.add(user.asText()));
      Set<String> lost = new TreeSet<>();
      died.path("lost").forEach(user -> lost.add(user.asText()));
      assertThat(restored).as("restored by name").containsAll(users);
      assertThat(lost).as("lost by name").doesNotContainAnyElementsOf(users);

      for (int i = 0; i < users.size(); i++) {
        Answer read = tabs[i].get("/api/state?page=" + pages[i]);
        assertThat(read.status()).as(read.text()).isEqualTo(200);
        assertThat(read.field("user")).isEqualTo(users.get(i));
        assertThat(read.number("counter")).as(users.get(i) + " as his checkpoint held him")
            .isEqualTo(i + 1);
        assertThat(read.field("worker")).isNotEqualTo(victim);
        Answer next = tabs[i].post("/api/counter", Map.of("page", pages[i]));
        assertThat(next.number("counter")).isEqualTo(i + 2);
      }
    }
  }

  private static String listing(Path home) {
    try (var files = Files.walk(home)) {
      StringBuilder out = new StringBuilder();
      files.forEach(file -> out.append(file).append(' '));
      for (Path log : Files.newDirectoryStream(home.resolve("workers"))) {
        out.append('\n').append(Files.readString(log));
      }
      return out.toString();
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
