package dev.cryo.commander;

import static dev.cryo.commander.DrainTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain that begins while a reload quits a worker carries that worker's users (issue 22,
 * finding 1): the reload's old worker holds two awake users, one of them with a call in flight
 * (so its quit waits), when the drain is asked; the drain says it follows the reload (and only then
 * is the call let end), and both users are carried — named in the report — and come back with
 * their state at the next start.
 */
@Timeout(300)
class DrainDuringReloadTest {

  @TempDir
  Path home;

  private Commander start() {
    return Commander.start(CommanderConfig.builder(home, GateApplication.class.getName())
        .workers(1).workerHeapBytes(128L * 1024 * 1024).hold(Duration.ofSeconds(60)).build());
  }

  @Test
  void aDrainDuringAReloadCarriesTheUsersOfTheWorkerBeingReplaced() throws Exception {
    Path gate = Files.createFile(home.resolveSibling(home.getFileName() + "-gate"));
    List<String> progress = new CopyOnWriteArrayList<>();
    DrainReport report;
    String pageA;
    String pageB;
    try (Commander commander = start();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      pageA = call(commander, "a", "POST", "/api/pages", null).path("page").asText();
      for (int i = 0; i < 3; i++) {
        call(commander, "a", "POST", "/api/counter", Map.of("page", pageA));
      }
      pageB = call(commander, "b", "POST", "/api/pages", null).path("page").asText();
      for (int i = 0; i < 2; i++) {
        call(commander, "b", "POST", "/api/counter", Map.of("page", pageB));
      }
      String old = commander.status().workers().get(0).name();
      CountDownLatch quitBegun = new CountDownLatch(1);
      commander.addListener(new RunListener() {
        @Override
        public void event(String event, Map<String, Object> fields) {
          if (event.equals("quit_begun") && old.equals(fields.get("worker"))) {
            quitBegun.countDown();
          }
        }
      });
      CompletableFuture<Reply> inFlight = CompletableFuture.supplyAsync(() -> {
        try {
          return DrainTest.send(commander, "b", "POST", "/api/gate", Map.of("file",
              gate.toString()));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, threads);
      assertThat(FakeWorkers.eventually(Duration.ofSeconds(30),
          () -> Files.exists(Path.of(gate + ".entered")))).as("the gate's call is in flight")
          .isTrue();
      CompletableFuture<ReloadOutcome> reload = CompletableFuture.supplyAsync(
          () -> commander.reload(null), threads);
      assertThat(quitBegun.await(120, TimeUnit.SECONDS)).as("the reload quits " + old).isTrue();

      report = commander.drain(Duration.ofSeconds(5), line -> {
        progress.add(line);
        if (line.contains("the drain will follow it")) { // the drain waits: let the call end
          try {
            Files.deleteIfExists(gate);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });

      assertThat(reload.get(60, TimeUnit.SECONDS).message()).isNotBlank();
      inFlight.get(60, TimeUnit.SECONDS);
    } finally {
      Files.deleteIfExists(gate);
    }
    assertThat(progress).anySatisfy(line -> assertThat(line)
        .contains("a reload is running: the drain will follow it"));
    assertThat(report.committed()).as(report.summary()).isTrue();
    assertThat(report.lost()).isEmpty();
    assertThat(report.carriedUsers()).as(report.summary()).hasSize(2);
    assertThat(report.notCarried()).isEmpty();

    try (Commander next = start()) {
      assertThat(next.startLine()).contains("2 users come back frozen");
      assertThat(DrainTest.state(next, "a", pageA).path("counter").asInt()).isEqualTo(3);
      assertThat(DrainTest.state(next, "b", pageB).path("counter").asInt()).isEqualTo(2);
    }
  }
}
