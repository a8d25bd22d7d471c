package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code cryo serve} killed with SIGKILL: its workers see the end of their wire, cut their calls
 * and exit without writing anything into the freezer; the run lock is left to a provably dead
 * holder, so the next {@code cryo serve} on the same home starts.
 */
class CommanderDeathTest {

  @TempDir Path scratch;

  @Test
  void workersExitWithoutWritingWhenTheirCommanderIsKilled() throws Exception {
    Path home = scratch.resolve("home");
    ServeRun run = ServeRun.serving(home, "--workers", "2");
    List<ProcessHandle> workers;
    try (HttpClient http = HttpClient.newHttpClient()) {
      DemoClient tab = new DemoClient(http, run.base());
      String page = tab.openPage();
      tab.post("/api/login", Map.of("user", "awake@example.org"));
      assertThat(tab.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
      workers = run.workerProcesses();
      assertThat(workers).hasSize(2);

      ChildCryo.kill("KILL", run.process().pid());
      for (ProcessHandle worker : workers) {
        Poll.until("worker " + worker.pid() + " exits", () -> !worker.isAlive());
      }
    } finally {
      run.close();
    }
    assertThat(parcels(home.resolve("freezer"))).as("nothing written to the freezer").isEmpty();

    ServeRun next = ServeRun.serving(home, "--workers", "1");
    try {
      assertThat(next.out()).contains("cryo serves");
    } finally {
      next.close();
    }
  }

  private static List<Path> parcels(Path freezer) throws Exception {
    if (!Files.isDirectory(freezer)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(freezer)) {
      return walk.filter(Files::isRegularFile).toList();
    }
  }
}
