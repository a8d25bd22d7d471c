package dev.cryo.control;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The strict JSON reading shared by {@code run.json} and {@code stop-request}: strict UTF-8, one
 * object, no duplicate keys, no NaN or Infinity, nothing after the object, exactly the expected
 * fields with exactly the expected types. Parsing goes to a tree and the fields are checked by hand,
 * so that a string is never coerced from a number nor a number from a string or a boolean (which
 * data binding would need a dozen coercion settings to forbid). Thread-safe.
 */
final class StrictJson {

  /** The longest quotation of a bad value in a problem. */
  static final int MAX_QUOTE = 80;
  /** The longest problem description. */
  static final int MAX_PROBLEM = 500;

  static final Pattern INVOCATION_ID = Pattern.compile("[0-9a-f]{32}");
  private static final int MAX_TIMESTAMP = 40;

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  /** A document that does not parse; the message is bounded and says why. */
  static final class Malformed extends Exception {
    Malformed(String message) {
      super(bounded(printable(message)));
    }
  }

  private StrictJson() {}

  /** Parses {@code bytes} into one JSON object with exactly {@code fields}. */
  static ObjectNode object(byte[] bytes, List<String> fields) throws Malformed {
    return object(bytes, fields, List.of());
  }

  /**
   * Parses {@code bytes} into one JSON object with every field of {@code fields}, any of
   * {@code optional}, and nothing else.
   */
  static ObjectNode object(byte[] bytes, List<String> fields, List<String> optional)
      throws Malformed {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new Malformed("is not valid UTF-8 (" + e.getMessage() + ")");
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new Malformed("is not JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new Malformed("must be a JSON object, got " + (node == null ? "nothing"
          : node.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
    }
    ObjectNode object = (ObjectNode) node;
    Set<String> unknown = new TreeSet<>();
    object.fieldNames().forEachRemaining(name -> {
      if (!fields.contains(name) && !optional.contains(name)) {
        unknown.add(quote(name));
      }
    });
    List<String> missing = new ArrayList<>();
    for (String field : fields) {
      if (!object.has(field)) {
        missing.add(field);
      }
    }
    if (!unknown.isEmpty() || !missing.isEmpty()) {
      throw new Malformed("has the fields " + unknown.stream().limit(5).toList()
          + " it may not have and lacks " + missing);
    }
    return object;
  }

  /** The string field {@code field}, which must equal {@code expected}. */
  static void schema(ObjectNode object, String expected) throws Malformed {
    JsonNode value = object.get("schema");
    if (!value.isTextual() || !value.textValue().equals(expected)) {
      throw new Malformed("has schema " + quote(value.toString()) + "; this reader reads "
          + expected);
    }
  }

  /** The string field {@code field}. */
  static String text(ObjectNode object, String field) throws Malformed {
    JsonNode value = object.get(field);
    if (!value.isTextual()) {
      throw new Malformed(field + " must be a string, got " + quote(value.toString()));
    }
    return value.textValue();
  }

  /** The invocation id in {@code field}: 32 lowercase hexadecimal digits. */
  static String invocationId(ObjectNode object, String field) throws Malformed {
    String value = text(object, field);
    if (!INVOCATION_ID.matcher(value).matches()) {
      throw new Malformed(field + " is not an invocation id (32 lowercase hex digits): "
          + quote(value));
    }
    return value;
  }

  /** The positive integer in {@code field}; a float, a string or a boolean is refused. */
  static long positive(ObjectNode object, String field) throws Malformed {
    JsonNode value = object.get(field);
    if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() <= 0) {
      throw new Malformed(field + " must be a positive integer, got " + quote(value.toString()));
    }
    return value.longValue();
  }

  /** The ISO-8601 timestamp with a zone offset in {@code field}. */
  static OffsetDateTime timestamp(ObjectNode object, String field) throws Malformed {
    String value = text(object, field);
    if (value.length() > MAX_TIMESTAMP) {
      throw new Malformed(field + " is not a timestamp: " + quote(value));
    }
    try {
      return OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeParseException e) {
      throw new Malformed(field + " is not an ISO-8601 timestamp with a zone offset: "
          + quote(value));
    }
  }

  /** {@code fields} as the bytes of a JSON object, in the given order, newline-terminated. */
  static byte[] write(Map<String, Object> fields) {
    try {
      return (MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(
          new LinkedHashMap<>(fields)) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + fields, e);
    }
  }

  static String quote(String value) {
    String shown = value.length() <= MAX_QUOTE ? value : cut(value, MAX_QUOTE) + "...";
    return "'" + printable(shown) + "'";
  }

  /**
   * {@code text} with every character that could drive a terminal or hide text replaced by
   * {@code ?}: the C0 and C1 controls (ESC, the 8-bit CSI, BEL, CR, backspace, DEL, NEL, ...), the
   * Unicode format characters (right-to-left overrides, zero-width characters), the line and
   * paragraph separators, and unpaired surrogates. Everything quoted from a file that anybody may
   * write goes through this before it is shown, since {@code cryo stop --status} prints it.
   */
  static String printable(String text) {
    StringBuilder clean = null;
    for (int i = 0; i < text.length(); ) {
      int point = text.codePointAt(i);
      int width = Character.charCount(point);
      boolean unsafe = Character.isISOControl(point)
          || Character.getType(point) == Character.FORMAT
          || point == 0x2028 || point == 0x2029
          || Character.getType(point) == Character.SURROGATE;
      if (unsafe && clean == null) {
        clean = new StringBuilder(text.length()).append(text, 0, i);
      }
      if (clean != null) {
        if (unsafe) {
          clean.append('?');
        } else {
          clean.appendCodePoint(point);
        }
      }
      i += width;
    }
    return clean == null ? text : clean.toString();
  }

  static String bounded(String text) {
    return text.length() <= MAX_PROBLEM ? text : cut(text, MAX_PROBLEM - 3) + "...";
  }

  /** The first {@code length} characters of {@code text}, never half of a surrogate pair. */
  private static String cut(String text, int length) {
    int end = Character.isHighSurrogate(text.charAt(length - 1)) ? length - 1 : length;
    return text.substring(0, end);
  }
}
