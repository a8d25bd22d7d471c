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
    assertThat(result.histograms()).containsKeys("floor", "floor-virtual", "floor-handoffs", "wire",
        "floor-selector");
    result.histograms().values().forEach(h -> assertThat(h.getTotalCount()).isGreaterThan(0));
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("wire / floor: p50")
        .contains("p99 of the blocks paired in each round").contains("alloc B/trip")
        .contains("floor-selector / floor, p99 of the blocks paired");
    assertThat(result.roundTails()).isNotEmpty()
        .allSatisfy(tails -> assertThat(tails).hasSize(5).doesNotContain(0L));
  }

  @Test
  void theTailsArePairedWithinEachRound() {
    // round 1: floor 10, wire 30 (3x); round 2: floor 100, wire 50 (0.5x); round 3: 20, 40 (2x)
    WireRoundTrip.Result result = new WireRoundTrip.Result(java.util.Map.of(),
        java.util.Map.of(), java.util.List.of(new long[] {10, 0, 0, 30},
            new long[] {100, 0, 0, 50}, new long[] {20, 0, 0, 40}));
    assertThat(result.pairedTailRatios("wire")).containsExactly(0.5, 2.0, 3.0);
    assertThat(WireRoundTrip.quantile(result.pairedTailRatios("wire"), 0.5)).isEqualTo(2.0);
    assertThat(WireRoundTrip.quantile(new double[0], 0.5)).isNaN();
  }

  @Test
  void theCommandLineIsChecked() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> WireRoundTrip.main(new String[] {"--nonsense", "1"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("usage");
  }
}
