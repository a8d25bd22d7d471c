package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker whose application cannot be loaded (here: no such class) exits with
 * {@link WorkerStart#CANNOT_START}; the commander does not try that deterministic failure again,
 * and the start fails at once saying so, however many attempts it was given.
 */
@Timeout(300)
class UnloadableApplicationTest {

  @TempDir
  Path home;

  @Test
  void aWorkerWhoseApplicationCannotBeLoadedIsNotStartedAgain() {
    CommanderConfig config = CommanderConfig.builder(home, "no.such.Application").workers(1)
        .workerHeapBytes(128L * 1024 * 1024).startAttempts(5)
        .startBackoff(Duration.ofMillis(200)).build();

    assertThatThrownBy(() -> Commander.start(config).close())
        .isInstanceOf(CommanderException.class)
        .hasMessageContaining("its application cannot be loaded")
        .hasMessageContaining("status " + WorkerStart.CANNOT_START)
        .hasMessageNotContaining("5 attempts");
  }
}
