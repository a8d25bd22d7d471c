package dev.cryo.wire.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Mutates a message's valid JSON into text a peer could send: its fields reordered, removed,
 * duplicated, set to null or to a value of another type (at the top and inside nested objects and
 * arrays), unknown fields added with nested objects and arrays, then perhaps truncated or followed
 * by more text. Each mutation step is drawn from the given {@link Random}.
 */
final class JsonMutations {

  private static final ObjectMapper TREES = new ObjectMapper();
  private static final List<String> NAMES = List.of("user", "connection", "admit", "generation",
      "parcelGeneration", "method", "path", "query", "headers", "body", "move", "socketless", "from",
      "to", "refused", "status",
      "watermark", "seq", "kind", "keys", "detail", "request", "ofQuit", "outcome", "message", "target", "key",
      "data", "pages", "written", "later", "x", "", "\u00e9t\u00e9", "us\\u0065r");
  private static final List<String> SCALARS = List.of("null", "true", "false", "0", "1", "-1",
      "2", "200", "-0", "5.0", "5.7", "-5.7", "1e2", "1E-2", "1.5e300", "2147483648",
      "9223372036854775807", "9223372036854775808", "-9223372036854775809",
      "123456789012345678901234567890", "\"\"", "\" \"", "\"5\"", "\" 12 \"", "\"+5\"", "\"1e2\"",
      "\"true\"", "\"True\"", "\"false\"", "\"null\"", "\"yes\"", "\"AQID\"", "\"AQ==\"", "\"AQ\"",
      "\"!!\"", "\"page\"", "\"live\"", "\"wake\"", "\"\\u0000\\ud800\"", "\"\u00e9\uD83D\uDE00\"");
  private static final List<String> TRAILERS = List.of(" x", "{}", " {}", "[]", "null", " 1",
      ",", "}", "]", "\"s\"", " \n\t ", "\u0000", " //", "{\"a\":1}");

  private JsonMutations() {}

  /** One to four mutations of {@code json}, a JSON object. */
  static String mutate(byte[] json, Random random) throws IOException {
    List<Field> fields = fields(TREES.readTree(json));
    int steps = 1 + random.nextInt(4);
    for (int i = 0; i < steps; i++) {
      mutateFields(fields, random, 2);
    }
    String text = render(fields, random);
    return switch (random.nextInt(10)) {
      case 0 -> text.substring(0, random.nextInt(text.length())); // truncated
      case 1 -> text + TRAILERS.get(random.nextInt(TRAILERS.size()));
      case 2 -> " \n" + text + "\r\n ";
      default -> text;
    };
  }

  /** A field as text: its name (already escaped) and its value's JSON. */
  private record Field(String name, String value) {}

  private static List<Field> fields(JsonNode object) {
    List<Field> fields = new ArrayList<>();
    for (Map.Entry<String, JsonNode> entry : object.properties()) {
      fields.add(new Field(entry.getKey(), entry.getValue().toString()));
    }
    return fields;
  }

  private static void mutateFields(List<Field> fields, Random random, int depth)
      throws IOException {
    int at = fields.isEmpty() ? 0 : random.nextInt(fields.size());
    switch (random.nextInt(9)) {
      case 0 -> Collections.shuffle(fields, random);
      case 1 -> fields.add(random.nextInt(fields.size() + 1),
          new Field(unknownName(random), randomValue(random, 3)));
      case 2 -> {
        if (!fields.isEmpty()) {
          fields.remove(at);
        }
      }
      case 3 -> {
        if (!fields.isEmpty()) {
          fields.set(at, new Field(fields.get(at).name(), "null"));
        }
      }
      case 4 -> {
        if (!fields.isEmpty()) {
          fields.set(at, new Field(fields.get(at).name(), randomValue(random, 2)));
        }
      }
      case 5 -> {
        if (!fields.isEmpty()) { // a duplicate key, with the same value or another
          Field copy = random.nextBoolean() ? fields.get(at)
              : new Field(fields.get(at).name(), randomValue(random, 1));
          fields.add(random.nextInt(fields.size() + 1), copy);
        }
      }
      default -> {
        if (!fields.isEmpty() && depth > 0) {
          fields.set(at, new Field(fields.get(at).name(),
              mutateValue(fields.get(at).value(), random, depth - 1)));
        }
      }
    }
  }

  /** A nested mutation: inside an object or an array, or a scalar replaced. */
  private static String mutateValue(String value, Random random, int depth) throws IOException {
    JsonNode node = TREES.readTree(value);
    if (node.isObject()) {
      List<Field> inner = fields(node);
      mutateFields(inner, random, depth);
      return render(inner, random);
    }
    if (node.isArray()) {
      List<String> elements = new ArrayList<>();
      node.forEach(element -> elements.add(element.toString()));
      int at = elements.isEmpty() ? 0 : random.nextInt(elements.size());
      switch (random.nextInt(4)) {
        case 0 -> elements.add(at, randomValue(random, 1));
        case 1 -> {
          if (!elements.isEmpty()) {
            elements.set(at, mutateValue(elements.get(at), random, depth));
          }
        }
        case 2 -> {
          if (!elements.isEmpty()) {
            elements.remove(at);
          }
        }
        default -> elements.add(at, "null");
      }
      return "[" + String.join(",", elements) + "]";
    }
    return randomValue(random, 1);
  }

  private static String render(List<Field> fields, Random random) {
    StringBuilder text = new StringBuilder("{");
    for (int i = 0; i < fields.size(); i++) {
      text.append(i == 0 ? "" : random.nextInt(8) == 0 ? " , " : ",")
          .append(quote(fields.get(i).name())).append(':').append(fields.get(i).value());
    }
    return text.append('}').toString();
  }

  private static String quote(String name) {
    return name.startsWith("us\\") ? "\"" + name + "\"" : TREES.valueToTree(name).toString();
  }

  private static String unknownName(Random random) {
    return random.nextBoolean() ? "later" + random.nextInt(3) : NAMES.get(random.nextInt(
        NAMES.size()));
  }

  /** Any JSON value: a scalar of any type, or an array or object of such, nested. */
  static String randomValue(Random random, int depth) {
    int kind = depth <= 0 ? 0 : random.nextInt(4);
    if (kind == 1) {
      List<String> elements = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        elements.add(randomValue(random, depth - 1));
      }
      return "[" + String.join(",", elements) + "]";
    }
    if (kind == 2) {
      List<Field> fields = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        fields.add(new Field(NAMES.get(random.nextInt(NAMES.size())),
            randomValue(random, depth - 1)));
      }
      return render(fields, random);
    }
    return SCALARS.get(random.nextInt(SCALARS.size()));
  }
}
