package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Epochs: numbered by the ends before an operation, none for an operation across an end. */
class EpochsTest {

  private static final long[] ENDS = {100, 200};

  @Test
  void anOperationBetweenEndsIsInTheEpochNumberedByTheEndsBeforeIt() {
    assertThat(Epochs.of(ENDS, 10, 90)).isZero();
    assertThat(Epochs.of(ENDS, 110, 190)).isEqualTo(1);
    assertThat(Epochs.of(ENDS, 210, Long.MAX_VALUE)).isEqualTo(2);
    assertThat(Epochs.of(new long[0], 10, Long.MAX_VALUE)).isZero();
  }

  @Test
  void anOperationWithinTheSlackOfAnEndIsInNone() {
    assertThat(Epochs.of(ENDS, 10, 95)).isEqualTo(Epochs.NONE); // 95 + 5 reaches 100
    assertThat(Epochs.of(ENDS, 10, 94)).isZero();
    assertThat(Epochs.of(ENDS, 105, 150)).isEqualTo(Epochs.NONE); // 105 - 5 reaches 100
    assertThat(Epochs.of(ENDS, 106, 150)).isEqualTo(1);
    assertThat(Epochs.of(ENDS, 150, 250)).isEqualTo(Epochs.NONE);
    assertThat(Epochs.of(ENDS, 150, Long.MAX_VALUE)).isEqualTo(Epochs.NONE);
  }

  @Test
  void anyWithinAndMerge() {
    assertThat(Epochs.anyWithin(ENDS, 100, 100)).isTrue();
    assertThat(Epochs.anyWithin(ENDS, 101, 199)).isFalse();
    assertThat(Epochs.anyWithin(ENDS, 150, 250)).isTrue();
    assertThat(Epochs.anyWithin(new long[0], 0, 1000)).isFalse();
    assertThat(Epochs.merge(List.of(new long[] {5, 300}, new long[0], new long[] {1},
        new long[] {7}))).containsExactly(1, 5, 7, 300);
    assertThat(Epochs.merge(List.of(new long[0], ENDS))).isSameAs(ENDS);
    assertThat(Epochs.split(List.of("x"), new long[0], x -> null)).hasSize(1);
  }
}
