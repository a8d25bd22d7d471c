package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.StopDelivery.Outcome;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server thread whose interrupt flag is set reads and writes its control files like any other,
 * and keeps its flag: an interrupt must never make a stop request read as "cannot be read" (which
 * every reader takes as a drain).
 */
class InterruptedControlTest {

  @TempDir Path base;

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void anInterruptedThreadPublishesAndReadsAStopRequest() throws Exception {
    RunDirectory directory = RunDirectory.at(base.resolve("run"));
    RunState run = RunState.begin();
    Thread.currentThread().interrupt();

    directory.writeRunState(run);
    assertThat(directory.loadRunState()).contains(run);
    StopDelivery delivery = directory.requestStop(StopMode.NOW);
    StopReading reading = directory.readStopRequest();

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(delivery.outcome()).isEqualTo(Outcome.WRITTEN);
    assertThat(reading.unparseable()).as(reading.problem()).isFalse();
    assertThat(reading.mode()).contains(StopMode.NOW);
    assertThat(reading.appliesTo(run.invocationId())).isTrue();
  }

  @Test
  void anInterruptedThreadReadsThroughASafeRoot() throws Exception {
    java.nio.file.Files.writeString(base.resolve("file"), "content");
    try (SafeRoot root = SafeRoot.open(base)) {
      Thread.currentThread().interrupt();

      Optional<byte[]> bytes = root.read("file", 100);

      assertThat(Thread.currentThread().isInterrupted()).isTrue();
      assertThat(bytes).hasValueSatisfying(b -> assertThat(new String(b)).isEqualTo("content"));
    }
  }
}
