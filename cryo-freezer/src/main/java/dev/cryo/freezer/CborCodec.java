package dev.cryo.freezer;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import com.fasterxml.jackson.dataformat.cbor.CBORParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The default codec: CBOR, for a tree of maps with string keys, lists, strings, numbers, booleans,
 * byte arrays and nulls — what the registers hold.
 *
 * <p>It reads every value as plain data ({@code LinkedHashMap}, {@code ArrayList}, {@code String},
 * {@code Integer}, {@code Long}, {@code BigInteger}, {@code Float}, {@code Double}, {@code BigDecimal},
 * {@code Boolean}, {@code byte[]}, {@code null}) and never as a class named by the bytes: there is no
 * object mapping at all, only Jackson's streaming CBOR reader, so a type hint such as
 * {@code "@class"} is just a map entry. Writing anything else is refused rather than turned into a
 * bean, so what is written is exactly what comes back; so is text that is not well-formed Unicode (a
 * lone surrogate has no UTF-8 form). Nesting deeper than Jackson's stream limits (1000 levels) is
 * refused both ways. Thread-safe.
 */
public final class CborCodec implements ParcelCodec {

  /** The name written in parcel headers. */
  public static final String NAME = "cbor";

  private final CBORFactory factory = new CBORFactory();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte[] encode(Object payload) {
    try (ByteArrayBuilder out = new ByteArrayBuilder(factory._getBufferRecycler());
        CBORGenerator generator = factory.createGenerator(out)) {
      write(generator, payload);
      generator.flush();
      return out.toByteArray();
    } catch (Unmappable e) {
      throw new IllegalArgumentException("the payload" + e.where() + e.getMessage(), null);
    } catch (IOException e) {
      throw new UncheckedIOException("the CBOR encoder refused the payload: " + e.getMessage(), e);
    }
  }

  @Override
  public Object decode(byte[] bytes) throws IOException {
    try (CBORParser parser = factory.createParser(bytes)) {
      Object value = read(parser, parser.nextToken());
      JsonToken trailing = parser.nextToken();
      if (trailing != null) {
        throw new IOException("trailing data after the payload (" + trailing + ")");
      }
      return value;
    }
  }

  /** One walk that checks and writes: the payload is never walked twice. */
  private static void write(CBORGenerator out, Object value) throws IOException {
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
      default -> throw new Unmappable(" is a " + value.getClass().getName() + "; the " + NAME
          + " codec maps maps, lists, strings, numbers, booleans, byte arrays and null only:"
          + " turn it into those first");
    }
  }

  private static void writeMap(CBORGenerator out, Map<?, ?> map) throws IOException {
    out.writeStartObject(map, map.size());
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      if (!(entry.getKey() instanceof String key)) {
        throw new Unmappable(" has a map key of type " + (entry.getKey() == null ? "null"
            : entry.getKey().getClass().getName()) + "; the " + NAME + " codec maps string keys"
            + " only");
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
            + " form; the " + NAME + " codec writes text as UTF-8 only: carry such a value as"
            + " bytes");
      }
    }
  }

  private static Object read(CBORParser in, JsonToken token) throws IOException {
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

    Unmappable(String problem) {
      super(problem, null, false, false);
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
