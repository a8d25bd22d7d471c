package dev.cryo.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hand-off harness runs and checks what it measures; no timing is asserted. */
class HandOffBenchTest {

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyHandOffOfCryosLockGoesFromOneHolderToTheNextWithoutOverlap() throws Exception {
    HandOffBench.Result result = HandOffBench.run("cryo", 3, 60, 10, 200, 100);

    assertThat(result.overlaps()).isZero();
    assertThat(result.measured()).isEqualTo(60);
    assertThat(result.sortedMillis()).hasSize(60);
    assertThat(result.sortedMillis()[0]).isPositive();
  }
}
