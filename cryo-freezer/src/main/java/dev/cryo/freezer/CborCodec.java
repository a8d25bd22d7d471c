package dev.cryo.freezer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * The default codec: CBOR, for a tree of maps with string keys, lists, strings, numbers, booleans,
 * byte arrays and nulls — what the registers hold.
 *
 * <p>It reads every value as plain data ({@code Map}, {@code List}, {@code String}, {@code Integer},
 * {@code Long}, {@code BigInteger}, {@code Double}, {@code BigDecimal}, {@code Boolean},
 * {@code byte[]}, {@code null}) and never as a class named by the bytes: default typing stays off,
 * so a type hint such as {@code "@class"} is just a map entry. Writing anything else is refused
 * rather than turned into a bean, so what is written is exactly what comes back; so is text that is
 * not well-formed Unicode (a lone surrogate has no UTF-8 form). Thread-safe.
 */
public final class CborCodec implements ParcelCodec {

  /** The name written in parcel headers. */
  public static final String NAME = "cbor";

  private final ObjectMapper mapper = CBORMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte[] encode(Object payload) {
    check(payload, "the payload");
    try {
      return mapper.writeValueAsBytes(payload);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("the CBOR encoder refused the payload: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public Object decode(byte[] bytes) throws IOException {
    return mapper.readValue(bytes, Object.class);
  }

  private static void checkText(String text, String where) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(where + " holds a lone surrogate at index " + i
            + ", which has no UTF-8 form; the " + NAME + " codec writes text as UTF-8 only:"
            + " carry such a value as bytes");
      }
    }
  }

  private static void check(Object value, String where) {
    switch (value) {
      case null -> { }
      case String s -> checkText(s, where);
      case Boolean b -> { }
      case Integer i -> { }
      case Long l -> { }
      case Short s -> { }
      case Byte b -> { }
      case BigInteger b -> { }
      case Double d -> { }
      case Float f -> { }
      case BigDecimal b -> { }
      case byte[] bytes -> { }
      case Map<?, ?> map -> {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (!(entry.getKey() instanceof String key)) {
            throw new IllegalArgumentException(where + " has a map key of type "
                + (entry.getKey() == null ? "null" : entry.getKey().getClass().getName())
                + "; the " + NAME + " codec maps string keys only");
          }
          checkText(key, where + " key");
          check(entry.getValue(), where + "." + key);
        }
      }
      case List<?> list -> {
        for (int i = 0; i < list.size(); i++) {
          check(list.get(i), where + "[" + i + "]");
        }
      }
      default -> throw new IllegalArgumentException(where + " is a " + value.getClass().getName()
          + "; the " + NAME + " codec maps maps, lists, strings, numbers, booleans, byte arrays"
          + " and null only: turn it into those first");
    }
  }
}
