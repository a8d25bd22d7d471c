package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class IsoMillisTest {

  @Property(tries = 2000)
  void formatIsInstantToString(@ForAll("instants") Instant instant) {
    assertThat(IsoMillis.format(instant)).isEqualTo(instant.toString());
  }

  @Property(tries = 2000)
  void parseReadsWhatFormatWrote(@ForAll("instants") Instant instant) {
    String text = instant.toString();
    Instant read = IsoMillis.parse(text);
    if (read != null) {
      assertThat(read).isEqualTo(Instant.parse(text));
    }
  }

  @Property(tries = 3000)
  void parseAgreesWithTheJdkOrLeavesItToIt(@ForAll("nearlyInstants") String text) {
    Instant read = IsoMillis.parse(text);
    if (read == null) {
      return;
    }
    assertThat(read).as(text).isEqualTo(Instant.parse(text));
  }

  @Test
  void theRecordsOwnShapeIsDoneByHandAndTheRestLeftToTheJdk() {
    assertThat(IsoMillis.parse("2026-11-29T16:31:05.123Z"))
        .isEqualTo(Instant.parse("2026-11-29T16:31:05.123Z"));
    assertThat(IsoMillis.parse("2024-02-29T00:00:00Z"))
        .isEqualTo(Instant.parse("2024-02-29T00:00:00Z"));
    assertThat(IsoMillis.parse("9999-12-31T23:59:59.999Z"))
        .isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
    for (String other : new String[] {"2026-11-29t16:31:05Z", "2026-11-29T16:31:05z",
        "2026-11-29T16:31:05.1234Z", "2026-11-29T16:31:05+01:00", "2016-12-31T23:59:60Z",
        "1969-12-31T23:59:59Z", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T16:31:05,123Z",
        "+10000-01-01T00:00:00Z", ""}) {
      assertThat(IsoMillis.parse(other)).as(other).isNull();
    }
  }

  @Test
  void theHandMadeCalendarIsTheJdksOnEveryDayFrom1970To9999() {
    java.time.LocalDate date = java.time.LocalDate.of(1970, 1, 1);
    java.time.LocalDate end = java.time.LocalDate.of(9999, 12, 31);
    for (long day = 0; !date.isAfter(end); day++, date = date.plusDays(1)) {
      int y = date.getYear();
      int m = date.getMonthValue();
      int d = date.getDayOfMonth();
      if (IsoMillis.epochDay(y, m, d) != day || IsoMillis.civil(day) != (y << 9 | m << 5 | d)
          || (d == 1 && IsoMillis.daysIn(y, m) != date.lengthOfMonth())) {
        throw new AssertionError(date + " (day " + day + "): epochDay "
            + IsoMillis.epochDay(y, m, d) + ", civil " + Integer.toHexString(IsoMillis.civil(day))
            + ", days in month " + IsoMillis.daysIn(y, m));
      }
    }
  }

  @Test
  void theLastDayOfEachMonthIsParsedAndTheDayAfterLeftToTheJdk() {
    for (int year : new int[] {1970, 1972, 2000, 2024, 2026, 2100, 2400, 9999}) {
      for (int month = 1; month <= 12; month++) {
        int last = IsoMillis.daysIn(year, month);
        String ok = String.format("%04d-%02d-%02dT12:00:00Z", year, month, last);
        assertThat(IsoMillis.parse(ok)).as(ok).isEqualTo(Instant.parse(ok));
        assertThat(IsoMillis.format(Instant.parse(ok))).as(ok).isEqualTo(ok);
        String past = String.format("%04d-%02d-%02dT12:00:00Z", year, month, last + 1);
        assertThat(IsoMillis.parse(past)).as(past).isNull();
      }
    }
  }

  @Test
  void anImpossibleDateIsStillRefusedByTheJdk() {
    org.junit.jupiter.api.Assertions.assertThrows(DateTimeParseException.class,
        () -> Instant.parse("2023-02-29T00:00:00Z"));
  }

  @Provide
  Arbitrary<Instant> instants() {
    Arbitrary<Long> seconds = Arbitraries.oneOf(
        Arbitraries.longs().between(-100_000_000_000L, 300_000_000_000L),
        Arbitraries.longs().between(0, 253_402_300_799L),
        Arbitraries.of(0L, 253_402_300_799L, 253_402_300_800L, -1L, 951_782_400L));
    Arbitrary<Integer> nanos = Arbitraries.oneOf(Arbitraries.just(0),
        Arbitraries.integers().between(0, 999).map(millis -> millis * 1_000_000),
        Arbitraries.integers().between(0, 999_999_999));
    return seconds.flatMap(second -> nanos.map(nano -> Instant.ofEpochSecond(second, nano)));
  }

  @Provide
  Arbitrary<String> nearlyInstants() {
    return instants().flatMap(instant -> {
      String text = instant.toString();
      return Arbitraries.integers().between(0, text.length() - 1).flatMap(at ->
          Arbitraries.chars().with("0123456789-:.TZtz+ 5").map(c ->
              text.substring(0, at) + c + text.substring(at + 1)));
    });
  }
}
