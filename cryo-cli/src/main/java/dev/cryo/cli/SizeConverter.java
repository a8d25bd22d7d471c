package dev.cryo.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a size in bytes: a number with an optional unit {@code k}, {@code m} or {@code g} (1024s). */
final class SizeConverter implements ITypeConverter<Long> {

  @Override
  public Long convert(String value) {
    String text = value.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (text.endsWith("b")) {
      text = text.substring(0, text.length() - 1);
    }
    if (!text.isEmpty()) {
      switch (text.charAt(text.length() - 1)) {
        case 'k' -> unit = 1L << 10;
        case 'm' -> unit = 1L << 20;
        case 'g' -> unit = 1L << 30;
        default -> unit = 1;
      }
      if (unit > 1) {
        text = text.substring(0, text.length() - 1);
      }
    }
    try {
      long number = Long.parseLong(text);
      if (number < 0 || number > Long.MAX_VALUE / unit) {
        throw new NumberFormatException();
      }
      return number * unit;
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is not a size: give bytes, or a number"
          + " with k, m or g (for example 512m)");
    }
  }
}
