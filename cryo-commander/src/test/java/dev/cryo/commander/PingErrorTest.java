package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes: a worker that answers every ping with an error reply (as one whose photo
 * outgrew the wire's frame limit did) and sends nothing else is alive, since it read the ping and
 * answered it: it is neither killed as silent nor as a worker that answers no ping, however many
 * beats it goes on so.
 *
 * <p>The worker is a fake worker JVM ({@code cryo.fake.pingError}) that prints a line per ping it
 * refused, so the test counts the beats it lived through instead of sleeping.
 */
@Timeout(180)
class PingErrorTest {

  @TempDir
  Path home;

  @Test
  void aWorkerThatAnswersItsPingsWithAnErrorLives() throws Exception {
    Duration beat = Duration.ofMillis(500);
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.pingError=main_0001")
        .heartbeat(beat).build())) {
      Path log = home.resolve("workers").resolve("main_0001.log");
      // Ten refused pings are ten beats: five times the two beats of silence that kill.
      int pings = 10;
      eventually(beat.multipliedBy(120),
          () -> FakeWorkers.count(commander, "worker_died") != 0 || refused(log) >= pings);

      assertThat(FakeWorkers.events(commander, "worker_died"))
          .as("no worker was declared dead while its pings were answered with errors").isEmpty();
      assertThat(refused(log)).as("pings answered with an error").isGreaterThanOrEqualTo(pings);
      assertThat(commander.status().workers()).extracting(Status.WorkerStatus::name,
          Status.WorkerStatus::state).contains(
              org.assertj.core.groups.Tuple.tuple("main_0001", WorkerState.RUNNING));
    }
  }

  /** How many pings the fake worker answered with an error so far. */
  private static long refused(Path log) {
    try {
      return Files.readAllLines(log).stream().filter(line -> line.startsWith("ping refused "))
          .count();
    } catch (IOException e) {
      return 0;
    }
  }
}
