package dev.cryo.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a duration from the command line: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 1d}, a plain number of seconds ({@code 30}), ISO-8601 ({@code PT5S}), or {@code forever}
 * (which {@link dev.cryo.lock.ProcessLock} caps at a year). Negative durations are refused.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  /** What {@code forever} stands for: longer than any lock wait is capped at. */
  public static final Duration FOREVER = Duration.ofDays(3650);

  private static final Pattern WITH_UNIT = Pattern.compile("([0-9]{1,12})(ms|s|m|h|d)");
  private static final Pattern SECONDS = Pattern.compile("[0-9]{1,12}");

  /** Creates the converter (picocli instantiates it). */
  public DurationConverter() {}

  @Override
  public Duration convert(String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    if (value.equals("forever")) {
      return FOREVER;
    }
    if (SECONDS.matcher(value).matches()) {
      return Duration.ofSeconds(Long.parseLong(value));
    }
    Matcher unit = WITH_UNIT.matcher(value);
    if (unit.matches()) {
      long amount = Long.parseLong(unit.group(1));
      return switch (unit.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    if (value.startsWith("p")) {
      try {
        Duration parsed = Duration.parse(value.toUpperCase(Locale.ROOT));
        if (!parsed.isNegative()) {
          return parsed;
        }
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    throw new CommandLine.TypeConversionException("'" + text + "' is not a duration: write 500ms,"
        + " 10s, 2m, 1h, 1d, a number of seconds, ISO-8601 such as PT5S, or forever");
  }
}
