package dev.cryo.worker;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The clocks of a parcel as text, exactly as {@link Instant#toString()} writes them and
 * {@link Instant#parse} reads them (ISO-8601 in UTC, {@code 2026-12-01T16:56:38.123Z}), without
 * the general formatter on the common shape: a freeze writes and a wake reads three clocks per
 * row, and the formatter was a measurable part of a move's processor time. Anything outside the
 * common shape (a year before 0000 or after 9999, a leap second, an offset) goes through the JDK's
 * own methods, so both ways give the JDK's results for every input. (cryo-lock's {@code IsoMillis}
 * does the same for a lock record's whole milliseconds, refusing rather than throwing; it stays
 * that module's own, so that a lock record's reading depends on nothing above it.) Stateless,
 * thread-safe.
 */
final class IsoInstant {

  private static final long SECONDS_PER_DAY = 86_400;
  /** The epoch second of 0000-01-01T00:00:00Z and of 10000-01-01T00:00:00Z. */
  private static final long FIRST = -62_167_219_200L;
  private static final long END = 253_402_300_800L;

  private IsoInstant() {}

  /** {@code instant.toString()}. */
  static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < FIRST || seconds >= END) {
      return instant.toString();
    }
    long day = Math.floorDiv(seconds, SECONDS_PER_DAY);
    int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    LocalDate date = LocalDate.ofEpochDay(day);
    int nanos = instant.getNano();
    StringBuilder out = new StringBuilder(30);
    digits(out, date.getYear(), 4).append('-');
    digits(out, date.getMonthValue(), 2).append('-');
    digits(out, date.getDayOfMonth(), 2).append('T');
    digits(out, secondOfDay / 3600, 2).append(':');
    digits(out, secondOfDay / 60 % 60, 2).append(':');
    digits(out, secondOfDay % 60, 2);
    if (nanos != 0) { // as ISO_INSTANT: in groups of three digits, as few as the value needs
      out.append('.');
      if (nanos % 1_000_000 == 0) {
        digits(out, nanos / 1_000_000, 3);
      } else if (nanos % 1000 == 0) {
        digits(out, nanos / 1000, 6);
      } else {
        digits(out, nanos, 9);
      }
    }
    return out.append('Z').toString();
  }

  /**
   * {@code Instant.parse(text)}.
   *
   * @throws java.time.format.DateTimeParseException as {@link Instant#parse} does
   */
  static Instant parse(CharSequence text) {
    int length = text.length();
    if (length < 20 || length > 30 || text.charAt(4) != '-' || text.charAt(7) != '-'
        || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':'
        || text.charAt(length - 1) != 'Z' || (length > 20 && (text.charAt(19) != '.'
            || length == 21))) {
      return Instant.parse(text);
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 7);
    int day = number(text, 8, 10);
    int hour = number(text, 11, 13);
    int minute = number(text, 14, 16);
    int second = number(text, 17, 19);
    int nanos = 0;
    if (length > 20) {
      int fraction = number(text, 20, length - 1);
      nanos = fraction < 0 ? -1 : fraction * POWERS[9 - (length - 21)];
    }
    if ((year | month | day | hour | minute | second | nanos) < 0 || hour > 23 || minute > 59
        || second > 59) {
      return Instant.parse(text); // its own error, or its reading of a leap second
    }
    try {
      long epochDay = LocalDate.of(year, month, day).toEpochDay();
      return Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L
          + second, nanos);
    } catch (DateTimeException e) {
      return Instant.parse(text); // a day the calendar does not have: the JDK's own error
    }
  }

  private static final int[] POWERS = {1, 10, 100, 1000, 10_000, 100_000, 1_000_000,
      10_000_000, 100_000_000};

  /** The decimal digits of {@code text[from, to)} as a number, or -1 when one is not a digit. */
  private static int number(CharSequence text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static StringBuilder digits(StringBuilder out, int value, int width) {
    String text = Integer.toString(value);
    for (int pad = width - text.length(); pad > 0; pad--) {
      out.append('0');
    }
    return out.append(text);
  }
}
