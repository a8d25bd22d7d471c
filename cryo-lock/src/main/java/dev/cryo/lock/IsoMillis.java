package dev.cryo.lock;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The {@code since} instant of a lock record, written and read without {@link
 * java.time.format.DateTimeFormatter}: the record's own shape, {@code 2026-11-29T16:31:05.123Z}
 * (whole milliseconds, years 1970 to 9999, UTC), done by hand, every other instant through the
 * JDK. Every contended try of a lock reads a record and every acquisition writes one, and the
 * formatter's general machinery was the largest part of that work in a short-lived process (see
 * {@code docs/benchmarks.md}, cryo-lock).
 *
 * <p>{@link #format} gives exactly {@link Instant#toString()}; {@link #parse} gives exactly
 * {@link Instant#parse} for what it accepts and {@code null} for anything else (lower-case letters,
 * an offset, more digits, a leap second, an impossible date), which the caller then hands to the
 * JDK. Stateless and thread-safe.
 */
final class IsoMillis {

  /** 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, the range done by hand. */
  private static final long FIRST_SECOND = 0;
  private static final long LAST_SECOND = 253_402_300_799L;
  private static final int SECONDS_PER_DAY = 86_400;

  private IsoMillis() {}

  /** {@code instant.toString()}, by hand when it is whole milliseconds between 1970 and 9999. */
  static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    int nanos = instant.getNano();
    if (seconds < FIRST_SECOND || seconds > LAST_SECOND || nanos % 1_000_000 != 0) {
      return instant.toString();
    }
    LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
    int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    char[] text = new char[nanos == 0 ? 20 : 24];
    digits(text, 0, date.getYear(), 4);
    text[4] = '-';
    digits(text, 5, date.getMonthValue(), 2);
    text[7] = '-';
    digits(text, 8, date.getDayOfMonth(), 2);
    text[10] = 'T';
    digits(text, 11, secondOfDay / 3600, 2);
    text[13] = ':';
    digits(text, 14, secondOfDay / 60 % 60, 2);
    text[16] = ':';
    digits(text, 17, secondOfDay % 60, 2);
    if (nanos != 0) {
      text[19] = '.';
      digits(text, 20, nanos / 1_000_000, 3);
    }
    text[text.length - 1] = 'Z';
    return new String(text);
  }

  /**
   * {@code Instant.parse(text)} when {@code text} is {@code yyyy-MM-ddTHH:mm:ssZ} or {@code
   * yyyy-MM-ddTHH:mm:ss.SSSZ} naming a real time of a year from 1970 to 9999; otherwise {@code null}
   * (the caller asks the JDK, which accepts more and words the refusal).
   */
  static Instant parse(String text) {
    int length = text.length();
    if ((length != 20 && length != 24) || text.charAt(length - 1) != 'Z'
        || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
        || text.charAt(13) != ':' || text.charAt(16) != ':') {
      return null;
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 2);
    int day = number(text, 8, 2);
    int hour = number(text, 11, 2);
    int minute = number(text, 14, 2);
    int second = number(text, 17, 2);
    int millis = 0;
    if (length == 24) {
      if (text.charAt(19) != '.') {
        return null;
      }
      millis = number(text, 20, 3);
    }
    if (year < 1970 || month < 1 || day < 1 || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59 || millis < 0) {
      return null;
    }
    long epochDay;
    try {
      epochDay = LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException e) {
      return null; // 31 April, 29 February of a common year: the JDK words it
    }
    return Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second,
        millis * 1_000_000L);
  }

  /** The decimal number of {@code count} ASCII digits at {@code from}, or -1 if one is not. */
  private static int number(String text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static void digits(char[] into, int at, int value, int count) {
    for (int i = at + count - 1; i >= at; i--) {
      into[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
