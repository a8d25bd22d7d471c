package dev.cryo.bench.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wire benchmark, run briefly so that it cannot rot: no timing asserted, only that it runs. */
class WireRoundTripTest {

  @Test
  void itRunsEveryContenderAndPrintsTheRatio() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    WireRoundTrip.Result result = WireRoundTrip.run(Duration.ofMillis(200), Duration.ofMillis(50),
        50, 1024, new PrintStream(printed, true, StandardCharsets.UTF_8));
    assertThat(result.histograms()).containsKeys("floor", "floor-virtual", "floor-handoffs", "wire");
    result.histograms().values().forEach(h -> assertThat(h.getTotalCount()).isGreaterThan(0));
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("wire / floor: p50");
  }

  @Test
  void theCommandLineIsChecked() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> WireRoundTrip.main(new String[] {"--nonsense", "1"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("usage");
  }
}
