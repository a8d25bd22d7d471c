package dev.cryo.chaos;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/** A duration on the command line: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, or seconds. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  /** Makes the converter (picocli does). */
  public DurationConverter() {}

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** Parses {@code value}; throws {@link IllegalArgumentException} naming it when it is no duration. */
  public static Duration parse(String value) {
    String text = value.strip().toLowerCase(Locale.ROOT);
    try {
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
      }
      char unit = text.isEmpty() ? ' ' : text.charAt(text.length() - 1);
      String number = Character.isDigit(unit) ? text : text.substring(0, text.length() - 1);
      long amount = Long.parseLong(number);
      return switch (unit) {
        case 's' -> Duration.ofSeconds(amount);
        case 'm' -> Duration.ofMinutes(amount);
        case 'h' -> Duration.ofHours(amount);
        default -> {
          if (!Character.isDigit(unit)) {
            throw new NumberFormatException(value);
          }
          yield Duration.ofSeconds(amount);
        }
      };
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException("'" + value + "' is not a duration (500ms, 30s, 10m, 1h,"
          + " or seconds)");
    }
  }
}
