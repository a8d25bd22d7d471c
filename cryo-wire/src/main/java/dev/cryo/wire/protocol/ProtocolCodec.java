package dev.cryo.wire.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * Writes and reads the protocol's messages as compact JSON. Unknown fields are ignored (a newer
 * peer may add some); a message that does not read — malformed JSON, a duplicate key, a missing
 * required field, a value of the wrong type — is a {@link ProtocolException}. Thread-safe.
 */
public final class ProtocolCodec {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  private ProtocolCodec() {}

  /** The message as compact JSON bytes. */
  public static byte[] write(Object message) {
    try {
      return MAPPER.writeValueAsBytes(message);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a protocol message did not write as JSON: " + e, e);
    }
  }

  /**
   * Reads a message of {@code type}.
   *
   * @throws ProtocolException when the bytes are not such a message
   */
  public static <T> T read(byte[] bytes, Class<T> type) {
    try {
      T value = MAPPER.readValue(bytes, type);
      if (value == null) {
        throw new ProtocolException("a " + type.getSimpleName() + " message was null");
      }
      return value;
    } catch (IOException | RuntimeException e) {
      if (e instanceof ProtocolException protocol) {
        throw protocol;
      }
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: "
          + e.getMessage(), e);
    }
  }
}
