package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClockTextTest {

  @Test
  void anInstantReadsAsInstantsOwnTextWhateverItsSecondAndFraction() {
    Random random = new Random(1201);
    ClockText text = new ClockText();
    long[] spans = {1_000, 86_400, 4_000_000_000L, Instant.MAX.getEpochSecond()};
    long second = 1_796_000_000L;
    for (int i = 0; i < 200_000; i++) {
      if (random.nextInt(4) > 0) { // mostly the next instants of one second: the kept prefix
        second += random.nextInt(3) - 1;
      } else {
        long span = spans[random.nextInt(spans.length)];
        second = random.nextLong(-span, span);
        second = Math.max(Instant.MIN.getEpochSecond(), Math.min(Instant.MAX.getEpochSecond(),
            second));
      }
      int nano = switch (random.nextInt(4)) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1_000;
        default -> random.nextInt(1_000_000_000);
      };
      Instant instant = Instant.ofEpochSecond(second, nano);
      assertThat(text.format(instant)).isEqualTo(instant.toString());
    }
    for (Instant edge : new Instant[] {Instant.EPOCH, Instant.MIN, Instant.MAX,
        Instant.ofEpochSecond(-1, 1), Instant.ofEpochSecond(253_402_300_800L, 10_000)}) {
      assertThat(text.format(edge)).isEqualTo(edge.toString());
    }
  }
}
