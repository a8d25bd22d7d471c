package dev.cryo.wire.protocol;

import java.util.Map;
import java.util.Objects;

/**
 * One meter of the application's own ({@code AppContext.meters()}), as a worker's photo carries it
 * to the commander, for the admin listener's metrics.
 *
 * @param name the meter's name, as the application gave it ({@code shop.orders})
 * @param type {@link #COUNTER}, {@link #GAUGE}, {@link #TIMER} or {@link #SUMMARY}
 * @param tags the application's tags
 * @param value a counter's count or a gauge's value; 0 for the others
 * @param count how many events a timer or a summary recorded; 0 for the others
 * @param total a timer's total time in seconds, or a summary's total amount; 0 for the others
 * @param baseUnit the meter's base unit, or null
 * @param description the meter's description, or null
 */
public record AppMeter(String name, String type, Map<String, String> tags, double value,
    long count, double total, String baseUnit, String description) {

  /** A counter: {@link #value} only grows. */
  public static final String COUNTER = "counter";
  /** A gauge: {@link #value} is the current value. */
  public static final String GAUGE = "gauge";
  /** A timer: {@link #count} events, {@link #total} seconds in all. */
  public static final String TIMER = "timer";
  /** A distribution summary: {@link #count} events, {@link #total} in all. */
  public static final String SUMMARY = "summary";

  /** Checks the parts and copies the tags. */
  public AppMeter {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    tags = tags == null ? Map.of() : Map.copyOf(tags);
  }
}
