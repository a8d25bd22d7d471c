package dev.cryo.commander;

import java.util.Collection;
import java.util.Map;

/**
 * One line of the event log as JSON text, written by hand for the values the commander records
 * (strings, whole numbers, booleans, null, lists and maps of them), character for character what
 * Jackson's {@code ObjectMapper.writeValueAsString} writes for them: the log's line is written on
 * the wire's reading thread for every announcement folded, before the reply that follows it is
 * handed over, and Jackson's data binding of a map was most of that line's cost in a move
 * (docs/benchmarks.md, "A move's processor time"). A value of any other type (a floating-point
 * number, a record) is refused with {@code false}, and the caller writes the line with Jackson.
 * Stateless, thread-safe.
 */
final class EventLine {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private EventLine() {}

  /**
   * Appends the log's line of one event to {@code out} (without its line end): the object of
   * {@code n}, {@code at} and {@code event} followed by {@code fields}, as {@link EventLog}
   * writes it.
   *
   * @return false when a value is of a type this writer does not write, or {@code fields} names
   *     one of the line's own three (Jackson's line then keeps the field in the first place);
   *     {@code out} then holds a part of the line and must be thrown away
   */
  static boolean line(StringBuilder out, long n, String at, String event,
      Map<String, ?> fields) {
    if (fields.containsKey("n") || fields.containsKey("at") || fields.containsKey("event")) {
      return false;
    }
    out.append("{\"n\":").append(n).append(",\"at\":");
    string(out, at);
    out.append(",\"event\":");
    string(out, event);
    return members(out, fields, false);
  }

  /**
   * Appends {@code fields} as one JSON object to {@code out}.
   *
   * @return false when a value is of a type this writer does not write; {@code out} then holds
   *     a part of the line and must be thrown away
   */
  static boolean append(StringBuilder out, Map<String, ?> fields) {
    out.append('{');
    return members(out, fields, true);
  }

  /** The members of an object whose opening brace is written, and its closing brace. */
  private static boolean members(StringBuilder out, Map<String, ?> fields, boolean first) {
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      if (field.getKey() == null) {
        return false;
      }
      string(out, field.getKey());
      out.append(':');
      if (!value(out, field.getValue())) {
        return false;
      }
    }
    out.append('}');
    return true;
  }

  private static boolean value(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String text) {
      string(out, text);
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte) {
      out.append(((Number) value).longValue());
    } else if (value instanceof Boolean bool) {
      out.append(bool.booleanValue());
    } else if (value instanceof Collection<?> items) {
      out.append('[');
      boolean first = true;
      for (Object item : items) {
        if (!first) {
          out.append(',');
        }
        first = false;
        if (!value(out, item)) {
          return false;
        }
      }
      out.append(']');
    } else if (value instanceof Map<?, ?> map) {
      for (Object key : map.keySet()) {
        if (!(key instanceof String)) {
          return false;
        }
      }
      @SuppressWarnings("unchecked")
      Map<String, ?> fields = (Map<String, ?>) map;
      return append(out, fields);
    } else {
      return false;
    }
    return true;
  }

  /** A JSON string as Jackson writes it: quote, backslash and control characters escaped. */
  private static void string(StringBuilder out, String text) {
    out.append('"');
    int plain = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(text, plain, i);
      plain = i + 1;
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    out.append(text, plain, text.length()).append('"');
  }
}
