package dev.cryo.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Reads an idle limit from the command line: {@code off} (null: the limit is not in force), or a
 * duration longer than zero as {@link DurationConverter} reads it. Zero is refused: it would
 * freeze every user after each of his calls.
 */
public final class IdleLimitConverter implements CommandLine.ITypeConverter<Duration> {

  /** Creates the converter (picocli instantiates it). */
  public IdleLimitConverter() {}

  @Override
  public Duration convert(String text) {
    if (text.strip().toLowerCase(Locale.ROOT).equals("off")) {
      return null;
    }
    Duration limit = new DurationConverter().convert(text);
    if (limit.isZero()) {
      throw new CommandLine.TypeConversionException("'" + text + "' is not an idle limit: write a"
          + " duration longer than zero (30s, 10m, 1h) or off");
    }
    return limit;
  }
}
