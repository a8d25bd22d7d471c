package dev.cryo.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Reads an idle limit (or another period that may be off, as {@code --checkpoint}) from the
 * command line: {@code off} (null: not in force), or a duration longer than zero as
 * {@link DurationConverter} reads it. Zero is refused: an idle limit of zero would freeze every
 * user after each of his calls, a checkpoint period of zero would never rest.
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
      throw new CommandLine.TypeConversionException("'" + text + "' is not a limit or period: write a"
          + " duration longer than zero (30s, 10m, 1h) or off");
    }
    return limit;
  }
}
