package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link Wire#events}: a burst of events written together, handled one by one in order. */
@Timeout(60)
class WireEventsTest {

  @TempDir
  Path directory;

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  @Test
  void aBurstIsHandledEventByEventInItsOrderBetweenTheEventsAroundIt() throws Exception {
    RecordingHandler commanderSide = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, commanderSide, new RecordingHandler(),
        WireLimits.defaults())) {
      pair.worker.event("announce", bytes("before"));
      pair.worker.events("announce", List.of(bytes("1"), bytes("2"), bytes("3")));
      pair.worker.events("announce", List.of());
      pair.worker.events("announce", List.of(bytes("alone")));
      pair.worker.event("announce", bytes("after"));
      commanderSide.awaitEvents(6);
      assertThat(commanderSide.events).containsExactly("announce:before", "announce:1",
          "announce:2", "announce:3", "announce:alone", "announce:after");
    }
  }

  @Test
  void aBurstWithOneFrameTooLargeSendsNothingOfIt() throws Exception {
    RecordingHandler commanderSide = new RecordingHandler();
    WireLimits limits = new WireLimits(1024, 512, 256, 4);
    try (WirePair pair = new WirePair(directory, commanderSide, new RecordingHandler(), limits)) {
      assertThatThrownBy(() -> pair.worker.events("announce",
          List.of(bytes("small"), new byte[4096])))
          .isInstanceOfSatisfying(WireRefusedException.class,
              e -> assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE));
      pair.worker.event("announce", bytes("next"));
      commanderSide.awaitEvents(1);
      assertThat(pair.worker.isOpen()).isTrue();
      assertThat(commanderSide.events).containsExactly("announce:next");
    }
  }

  @Test
  void aBurstOnAClosedWireIsRefused() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      pair.worker.close();
      assertThatThrownBy(() -> pair.worker.events("announce", List.of(bytes("x"))))
          .isInstanceOf(WireClosedException.class);
    }
  }
}
