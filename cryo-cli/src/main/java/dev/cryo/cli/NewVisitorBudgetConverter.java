package dev.cryo.cli;

import dev.cryo.front.NewVisitorBudget;
import picocli.CommandLine;

/**
 * Reads {@code --new-visitors-per-address}: {@code RATE[/BURST]} (new visitors a second per client
 * address, and how many at once; {@code 20/100}) or {@code off}, as {@link NewVisitorBudget#parse}
 * reads it. Anything else is a usage error naming the shape.
 */
public final class NewVisitorBudgetConverter
    implements CommandLine.ITypeConverter<NewVisitorBudget> {

  /** Creates the converter (picocli instantiates it). */
  public NewVisitorBudgetConverter() {}

  @Override
  public NewVisitorBudget convert(String text) {
    try {
      return NewVisitorBudget.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
