package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.gone;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes: a worker that connects but never presents itself within the presentation
 * timeout leaves nothing behind — its socket file unlinked, no socket of the commander's left on
 * that path (neither the listener nor the accepted connection: the kernel's table of Unix
 * sockets, {@code /proc/net/unix}, names every socket bound or accepted on a path), its process
 * and the rest of its group killed — and the retry after the backoff starts clean and serves.
 */
@Timeout(180)
class WorkerStartTest {

  @TempDir
  Path home;

  @Test
  void aStartThatTimesOutLeavesNoSocketNorProcessAndItsRetryStartsClean() throws Exception {
    Path hang = Files.createFile(home.resolveSibling(home.getFileName() + "-hang"));
    Path socket = home.resolve("sockets").resolve("main_0001.sock");
    CommanderConfig config = config(home, "-Dcryo.fake.hangWhile=" + hang,
        "-Dcryo.fake.child=true").workers(1).presentation(Duration.ofSeconds(8)).startAttempts(4)
        .startBackoff(Duration.ofSeconds(10)) // the gap in which the first attempt's rests are read
        .build();
    CompletableFuture<Commander> started = CompletableFuture.supplyAsync(
        () -> Commander.start(config));
    Path events = home.resolve(EventLog.FILE_NAME);
    Path log = home.resolve("workers").resolve("main_0001.log");
    try {
      assertThat(eventually(Duration.ofSeconds(60), () -> logSays(log, "child "))).isTrue();
      assertThat(eventually(Duration.ofSeconds(30), () -> unixSocketsOn(socket) >= 2))
          .as("the listener and its accepted connection").isTrue(); // the check sees them

      assertThat(eventually(Duration.ofSeconds(60),
          () -> logSays(events, "worker_start_failed"))).isTrue();

      // Read at once, before the retry binds the path again.
      assertThat(Files.exists(socket)).isFalse();
      assertThat(unixSocketsOn(socket)).as("sockets left on " + socket).isZero();
      Files.delete(hang); // the retry's worker presents itself
      long child = Long.parseLong(Files.readAllLines(log).stream()
          .filter(line -> line.startsWith("child ")).findFirst().orElseThrow().substring(6));
      assertThat(eventually(Duration.ofSeconds(30), () -> gone(child))).as("its group's child")
          .isTrue();
    } finally {
      Files.deleteIfExists(hang);
    }

    try (Commander commander = started.get(120, TimeUnit.SECONDS)) {
      List<JsonNode> failed = FakeWorkers.events(commander, "worker_start_failed");
      assertThat(failed.get(0).path("reason").asText()).contains("did not present itself");
      // On a loaded machine a retry may miss its time too: each failed attempt is gone whole.
      List<JsonNode> spawned = FakeWorkers.events(commander, "worker_spawned");
      assertThat(spawned).hasSize(failed.size() + 1);
      for (JsonNode attempt : spawned.subList(0, failed.size())) {
        assertThat(gone(attempt.path("pid").asLong())).isTrue();
      }
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=1 worker=main_0001");
      assertThat(unixSocketsOn(socket)).as("the serving attempt's connection only").isEqualTo(1);
    }
  }

  /** How many Unix sockets of this machine are bound or accepted on {@code path}. */
  private static long unixSocketsOn(Path path) {
    String name = " " + path;
    try {
      return Files.readAllLines(Path.of("/proc/net/unix")).stream()
          .filter(line -> line.endsWith(name)).count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean logSays(Path log, String text) {
    try {
      return Files.exists(log) && Files.readString(log).contains(text);
    } catch (IOException e) {
      return false;
    }
  }
}
