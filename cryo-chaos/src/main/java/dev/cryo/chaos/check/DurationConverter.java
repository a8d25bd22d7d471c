package dev.cryo.chaos.check;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A duration on the module's command lines: seconds ({@code 10}, {@code 1.5}), or with a unit
 * ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}), or ISO-8601 ({@code PT10S}). A negative
 * duration, or anything else, is refused with a message naming the value.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern AMOUNT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

  /** Makes the converter (picocli does). */
  public DurationConverter() {}

  @Override
  public Duration convert(String value) {
    String text = value.strip().toLowerCase(Locale.ROOT);
    Matcher matcher = AMOUNT.matcher(text);
    Duration duration;
    if (matcher.matches()) {
      double amount = Double.parseDouble(matcher.group(1));
      String unit = matcher.group(2) == null ? "s" : matcher.group(2);
      double millis = switch (unit) {
        case "ms" -> amount;
        case "m" -> amount * 60_000;
        case "h" -> amount * 3_600_000;
        default -> amount * 1000;
      };
      duration = Duration.ofNanos(Math.round(millis * 1_000_000));
    } else {
      try {
        duration = Duration.parse(value.strip());
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a duration"
            + " (10, 10s, 500ms, 2m, 1h or PT10S)");
      }
    }
    if (duration.isNegative()) {
      throw new CommandLine.TypeConversionException("'" + value + "' is negative");
    }
    return duration;
  }
}
