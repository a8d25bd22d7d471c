package dev.cryo.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of Prometheus' text exposition format 0.0.4, for tests: every line must be a
 * {@code # HELP}, a {@code # TYPE} of a known type, or a sample {@code name{label="value",...}
 * number}; anything else fails the test. Samples are keyed by their name and labels as written.
 */
public final class PrometheusText {

  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
  private static final Pattern TYPE = Pattern.compile(
      "# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*"
      + "=\"(?:[^\"\\\\]|\\\\.)*\",?)*\\})? ([-+]?(?:[0-9.]+(?:[eE][-+]?[0-9]+)?|NaN|Inf))"
      + "(?: -?[0-9]+)?");

  private final Map<String, Double> samples;
  private final Map<String, String> types;

  private PrometheusText(Map<String, Double> samples, Map<String, String> types) {
    this.samples = samples;
    this.types = types;
  }

  /** Reads {@code text}; throws AssertionError naming the first line that is not the format. */
  public static PrometheusText parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    Map<String, String> types = new LinkedHashMap<>();
    int number = 0;
    for (String line : text.split("\n", -1)) {
      number++;
      if (line.isEmpty()) {
        continue;
      }
      Matcher type = TYPE.matcher(line);
      if (type.matches()) {
        types.put(type.group(1), type.group(2));
        continue;
      }
      if (HELP.matcher(line).matches()) {
        continue;
      }
      Matcher sample = SAMPLE.matcher(line);
      if (!sample.matches()) {
        throw new AssertionError("line " + number + " is not Prometheus text: " + line);
      }
      String key = sample.group(1) + (sample.group(2) == null ? "" : sample.group(2));
      String value = sample.group(3);
      samples.put(key, value.endsWith("Inf") ? (value.startsWith("-") ? Double.NEGATIVE_INFINITY
          : Double.POSITIVE_INFINITY) : Double.parseDouble(value));
    }
    return new PrometheusText(samples, types);
  }

  /** The value of the sample written exactly {@code key} (name and labels), or null. */
  public Double value(String key) {
    return samples.get(key);
  }

  /** The value of {@code key}, 0 when absent. */
  public double valueOrZero(String key) {
    Double value = samples.get(key);
    return value == null ? 0 : value;
  }

  /** The declared type of the family {@code name}, or null. */
  public String type(String name) {
    return types.get(name);
  }

  /** Every sample, by key. */
  public Map<String, Double> samples() {
    return samples;
  }
}
