package dev.cryo.commander;

import java.time.Instant;

/**
 * An instant as text, exactly as {@link Instant#toString()} writes it, for the event log's
 * {@code at} (one per line, on the wire's reading thread for every announcement folded): the
 * date and time of day are formatted by the JDK once per second and kept, the fraction of the
 * second is appended in groups of three digits as {@link Instant#toString()} does (none, 3, 6
 * or 9). Not thread-safe: one per event log, used under its lock.
 */
final class ClockText {

  private long second = Long.MIN_VALUE;
  /** {@code Instant.toString()} of {@link #second} without its closing {@code Z}. */
  private String prefix = "";

  /** Appends {@code instant} as {@link Instant#toString()} writes it. */
  StringBuilder append(StringBuilder out, Instant instant) {
    if (instant.getEpochSecond() != second) {
      String whole = Instant.ofEpochSecond(instant.getEpochSecond()).toString();
      prefix = whole.substring(0, whole.length() - 1);
      second = instant.getEpochSecond();
    }
    out.append(prefix);
    int nano = instant.getNano();
    if (nano != 0) {
      int digits;
      int value;
      if (nano % 1_000_000 == 0) {
        digits = 3;
        value = nano / 1_000_000;
      } else if (nano % 1_000 == 0) {
        digits = 6;
        value = nano / 1_000;
      } else {
        digits = 9;
        value = nano;
      }
      out.append('.');
      for (int power = pow10(digits - 1); power > 0; power /= 10) {
        out.append((char) ('0' + value / power % 10));
      }
    }
    return out.append('Z');
  }

  /** The instant as text (see {@link #append}). */
  String format(Instant instant) {
    return append(new StringBuilder(32), instant).toString();
  }

  private static int pow10(int exponent) {
    int power = 1;
    for (int i = 0; i < exponent; i++) {
      power *= 10;
    }
    return power;
  }
}
