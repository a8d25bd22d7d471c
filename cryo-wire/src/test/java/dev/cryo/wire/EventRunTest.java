package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Wire#events}: several events of one method written together reach the peer as as many
 * events, in order, after what was written before them; one too large refuses the whole run and
 * sends nothing of it.
 */
class EventRunTest {

  @TempDir Path directory;

  @Test
  void aRunOfEventsArrivesAsSeparateEventsInOrderAfterTheEventBeforeIt() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      pair.worker.event("announce", "first".getBytes(UTF_8));
      List<byte[]> run = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        run.add(("run-" + i).getBytes(UTF_8));
      }
      pair.worker.events("announce", run);
      pair.worker.events("announce", List.of("alone".getBytes(UTF_8)));
      pair.worker.events("announce", List.of());
      pair.commanderHandler.awaitEvents(42);
      List<String> expected = new ArrayList<>();
      expected.add("announce:first");
      for (int i = 0; i < 40; i++) {
        expected.add("announce:run-" + i);
      }
      expected.add("announce:alone");
      assertThat(pair.commanderHandler.events).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void aRunWithOneFrameTooLargeSendsNothingOfItAndTheWireStaysOpen() throws Exception {
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), new RecordingHandler(),
        WireLimits.defaults())) {
      byte[] huge = new byte[WireLimits.defaults().maxFrameBytes()];
      assertThatThrownBy(() -> pair.worker.events("announce", List.of("a".getBytes(UTF_8), huge)))
          .isInstanceOf(WireRefusedException.class);
      pair.worker.event("announce", "after".getBytes(UTF_8));
      pair.commanderHandler.awaitEvents(1);
      assertThat(pair.commanderHandler.events).containsExactly("announce:after");
      assertThat(pair.worker.isOpen()).isTrue();
    }
  }
}
