package dev.cryo.lock;

import java.time.Instant;

/**
 * The {@code since} instant of a lock record, written and read without {@link
 * java.time.format.DateTimeFormatter}: the record's own shape, {@code 2026-11-29T16:31:05.123Z}
 * (whole milliseconds, years 1970 to 9999, UTC), done by hand, every other instant through the
 * JDK. Every contended try of a lock reads a record and every acquisition writes one, and the
 * formatter's general machinery was the largest part of that work in a short-lived process (see
 * {@code docs/benchmarks.md}, cryo-lock). The calendar is done by hand too ({@link #epochDay},
 * {@link #civil}): {@code LocalDate} checks a leap year through {@code Year}, whose initialiser
 * builds a formatter, and that set up about a hundred classes of {@code java.time.format} and
 * regular expressions in every JVM that read a record.
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
    int date = civil(Math.floorDiv(seconds, SECONDS_PER_DAY));
    int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    char[] text = new char[nanos == 0 ? 20 : 24];
    digits(text, 0, date >>> 9, 4);
    text[4] = '-';
    digits(text, 5, date >>> 5 & 15, 2);
    text[7] = '-';
    digits(text, 8, date & 31, 2);
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
    if (month > 12 || day > daysIn(year, month)) {
      return null; // 31 April, 29 February of a common year: the JDK words it
    }
    long epochDay = epochDay(year, month, day);
    return Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second,
        millis * 1_000_000L);
  }

  /** How many days {@code month} (1 to 12) of {@code year} has, in the proleptic Gregorian calendar. */
  static int daysIn(int year, int month) {
    return switch (month) {
      case 2 -> year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /**
   * The day since 1970-01-01 of a valid date of a year from 0 on, as {@code
   * LocalDate.of(year, month, day).toEpochDay()} (days counted in eras of 400 years from 1 March,
   * so that the leap day ends a year).
   */
  static long epochDay(int year, int month, int day) {
    int y = month <= 2 ? year - 1 : year;
    int era = y / 400;
    int yearOfEra = y - era * 400;
    int dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097L + dayOfEra - 719_468;
  }

  /**
   * The date of {@code epochDay} (from 1970-01-01 to 9999-12-31), the inverse of {@link #epochDay},
   * packed as {@code year << 9 | month << 5 | day}.
   */
  static int civil(long epochDay) {
    long z = epochDay + 719_468;
    int era = (int) (z / 146_097);
    int dayOfEra = (int) (z - era * 146_097L);
    int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    int shifted = (5 * dayOfYear + 2) / 153;
    int day = dayOfYear - (153 * shifted + 2) / 5 + 1;
    int month = shifted < 10 ? shifted + 3 : shifted - 9;
    int year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    return year << 9 | month << 5 | day;
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
