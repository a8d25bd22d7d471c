package dev.cryo.freezer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plain data through one of Jackson's streaming formats, the whole of the built-in codecs: a tree of
 * maps with string keys, lists, strings, numbers, booleans, byte arrays and nulls, written in one walk
 * that also refuses anything else, and read back as {@code LinkedHashMap}, {@code ArrayList},
 * {@code String}, {@code Integer}, {@code Long}, {@code BigInteger}, {@code Float}, {@code Double},
 * {@code BigDecimal}, {@code Boolean}, {@code byte[]} and {@code null}. Numbers keep their value,
 * not always their Java type: an integer comes back as the narrowest of {@code Integer},
 * {@code Long} and {@code BigInteger} that holds it (a {@code Long} 5 as an {@code Integer} 5, a
 * {@code Short} as an {@code Integer}), as JSON readers do; read stores through
 * {@link Number} rather than a cast to one boxed type.
 *
 * <p>There is no object mapping at all, only the streaming reader, so no byte can name a class to
 * instantiate: a type hint such as {@code "@class"} is just a map entry. Text that is not
 * well-formed Unicode (a lone surrogate has no UTF-8 form) is refused on write. Nesting deeper than
 * Jackson's stream limits (1000 levels) is refused both ways. Stateless and thread-safe.
 */
final class PlainTree {

  private PlainTree() {}

  /** Encodes {@code payload} with {@code factory}; see {@link ParcelCodec#encode}. */
  static byte[] encode(JsonFactory factory, String codec, Object payload) {
    try (ByteArrayBuilder out = new ByteArrayBuilder(factory._getBufferRecycler());
        JsonGenerator generator = factory.createGenerator(out)) {
      write(generator, payload);
      generator.flush();
      return out.toByteArray();
    } catch (Unmappable e) {
      throw new IllegalArgumentException("the payload" + e.where() + e.getMessage() + "; the "
          + codec + " codec " + e.rule, null);
    } catch (IOException e) {
      throw new UncheckedIOException("the " + codec + " encoder refused the payload: "
          + e.getMessage(), e);
    }
  }

  /**
   * Decodes one payload, the {@code length} bytes at {@code offset}, and nothing after it within
   * them; see {@link ParcelCodec#decode(byte[], int, int)}.
   */
  static Object decode(JsonFactory factory, byte[] bytes, int offset, int length)
      throws IOException {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    try (JsonParser parser = factory.createParser(bytes, offset, length)) {
      Object value = read(parser, parser.nextToken());
      JsonToken trailing = parser.nextToken();
      // Smile may read a second document's header as the end of this one: count what is left too.
      int left = parser.releaseBuffered(OutputStream.nullOutputStream());
      if (trailing != null || left > 0) {
        throw new IOException("trailing data after the payload ("
            + (trailing != null ? trailing : left + " bytes") + ")");
      }
      return value;
    }
  }

  /** One walk that checks and writes: the payload is never walked twice. */
  private static void write(JsonGenerator out, Object value) throws IOException {
    switch (value) {
      case null -> out.writeNull();
      case String s -> {
        checkText(s);
        out.writeString(s);
      }
      case Boolean b -> out.writeBoolean(b);
      case Integer i -> out.writeNumber(i.intValue());
      case Long l -> out.writeNumber(l.longValue());
      case Short s -> out.writeNumber(s.intValue());
      case Byte b -> out.writeNumber(b.intValue());
      case BigInteger b -> out.writeNumber(b);
      case Double d -> out.writeNumber(d.doubleValue());
      case Float f -> out.writeNumber(f.floatValue());
      case BigDecimal b -> out.writeNumber(b);
      case byte[] bytes -> out.writeBinary(bytes);
      case Map<?, ?> map -> writeMap(out, map);
      case List<?> list -> {
        out.writeStartArray(list, list.size());
        int i = 0;
        for (Object element : list) {
          try {
            write(out, element);
          } catch (Unmappable e) {
            throw e.under("[" + i + "]");
          }
          i++;
        }
        out.writeEndArray();
      }
      default -> throw new Unmappable(" is a " + value.getClass().getName(), "maps maps, lists,"
          + " strings, numbers, booleans, byte arrays and null only: turn it into those first");
    }
  }

  private static void writeMap(JsonGenerator out, Map<?, ?> map) throws IOException {
    out.writeStartObject(map, map.size());
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      if (!(entry.getKey() instanceof String key)) {
        throw new Unmappable(" has a map key of type " + (entry.getKey() == null ? "null"
            : entry.getKey().getClass().getName()), "maps string keys only");
      }
      try {
        checkText(key);
      } catch (Unmappable e) {
        throw e.under(" key");
      }
      out.writeFieldName(key);
      try {
        write(out, entry.getValue());
      } catch (Unmappable e) {
        throw e.under("." + key);
      }
    }
    out.writeEndObject();
  }

  private static void checkText(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else {
        throw new Unmappable(" holds a lone surrogate at index " + i + ", which has no UTF-8"
            + " form", "writes text as UTF-8 only: carry such a value as bytes");
      }
    }
  }

  private static Object read(JsonParser in, JsonToken token) throws IOException {
    if (token == null) {
      throw new IOException("the payload ends before its first value");
    }
    return switch (token) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken next = in.nextToken(); next != JsonToken.END_OBJECT; next = in.nextToken()) {
          if (next != JsonToken.FIELD_NAME) {
            throw new IOException("a map holds " + next + " where a key belongs");
          }
          String key = in.currentName();
          map.put(key, read(in, in.nextToken()));
        }
        yield map;
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (JsonToken next = in.nextToken(); next != JsonToken.END_ARRAY; next = in.nextToken()) {
          list.add(read(in, next));
        }
        yield list;
      }
      case VALUE_STRING -> in.getText();
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> in.getNumberValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      case VALUE_EMBEDDED_OBJECT -> {
        if (in.getEmbeddedObject() instanceof byte[] bytes) {
          yield bytes;
        }
        throw new IOException("an embedded value that is not bytes");
      }
      default -> throw new IOException("an unexpected " + token);
    };
  }

  /**
   * A value the codec does not map. Thrown without a stack trace and caught by {@link #encode},
   * which turns it into the {@link IllegalArgumentException} of the contract; the path to the value
   * is built only on this path, as the exception climbs out of the tree.
   */
  private static final class Unmappable extends RuntimeException {
    private final StringBuilder where = new StringBuilder();
    private final String rule;

    Unmappable(String problem, String rule) {
      super(problem, null, false, false);
      this.rule = rule;
    }

    Unmappable under(String step) {
      where.insert(0, step);
      return this;
    }

    String where() {
      return where.toString();
    }
  }
}
