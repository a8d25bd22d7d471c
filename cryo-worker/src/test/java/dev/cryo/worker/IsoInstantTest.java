package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The parcel clocks' text is the JDK's, both ways, for every instant and every string tried. */
class IsoInstantTest {

  @Test
  void writesWhatInstantToStringWritesAndReadsItBack() {
    Random random = new Random(20261201);
    for (int i = 0; i < 200_000; i++) {
      long seconds = switch (i % 4) {
        case 0 -> random.nextLong(-62_167_219_200L - 1000, 253_402_300_800L + 1000);
        case 1 -> 1_700_000_000L + random.nextInt(1_000_000_000);
        case 2 -> random.nextLong(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond());
        default -> random.nextInt(200_000) - 100_000;
      };
      int nanos = switch (i % 5) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1000;
        default -> random.nextInt(1_000_000_000);
      };
      Instant instant = Instant.ofEpochSecond(seconds, nanos);
      String text = IsoInstant.format(instant);
      assertThat(text).isEqualTo(instant.toString());
      assertThat(IsoInstant.parse(text)).isEqualTo(instant);
    }
  }

  @Test
  void readsEveryOtherShapeAsInstantParseDoes() {
    for (String text : List.of("2026-12-01T16:56:38Z", "2026-12-01T16:56:38.1Z",
        "2026-12-01T16:56:38.12Z", "2026-12-01T16:56:38.1234Z", "2026-12-01T16:56:38.12345678Z",
        "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2024-02-29T00:00:00Z",
        "2016-12-31T23:59:60Z", "+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z",
        "2026-12-01T16:56:38+01:00", "2026-12-01t16:56:38Z", "2026-12-01T16:56:38.Z",
        "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
        "2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z", "2026-12-01T23:59:61Z",
        "2026-12-01T16:56:38.1234567890Z", "2026-12-01T16:56:3xZ", "2026-12-0aT16:56:38Z",
        "２026-12-01T16:56:38Z", "2026-12-01T16:56:38,5Z", "", "Z", "2026-12-01")) {
      Instant expected = null;
      Throwable expectedFailure = null;
      try {
        expected = Instant.parse(text);
      } catch (RuntimeException e) {
        expectedFailure = e;
      }
      if (expectedFailure == null) {
        assertThat(IsoInstant.parse(text)).as(text).isEqualTo(expected);
      } else {
        Throwable failure = catchThrowable(() -> IsoInstant.parse(text));
        assertThat(failure).as(text).isInstanceOf(expectedFailure.getClass())
            .hasMessage(expectedFailure.getMessage());
      }
    }
  }
}
