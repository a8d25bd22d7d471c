package dev.cryo.wire.protocol;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * Writes and reads the protocol's messages as compact JSON. Unknown fields are ignored (a newer
 * peer may add some); a message that does not read — malformed JSON, a duplicate key, a trailing
 * token, a missing required field, a value of the wrong type — is a {@link ProtocolException}
 * whose message names the message's type and what was wrong. Thread-safe: nothing is shared but
 * Jackson's thread-safe mapper and its factory.
 *
 * <p>The messages of a request's and a move's path ({@link HttpCall}, {@link HttpResult},
 * {@link AnnouncementMessage}, {@link UserOrder}, {@link FreezeResult}, {@link PushMessage},
 * {@link PushResult}) are written and read by hand with Jackson's streaming API
 * ({@code MessageWriters}, {@code MessageReaders}), on the same factory as the mapper: the same
 * bytes as data binding writes, and the same messages accepted and refused, except for the scalar
 * coercions of data binding that {@code MessageReaders} lists and refuses (docs/wire.md,
 * "Messages written by hand"). Every other message goes through data binding.
 */
public final class ProtocolCodec {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  /** The mapper's factory: its parsers detect duplicate keys, as the mapper's do. */
  static final JsonFactory FACTORY = MAPPER.getFactory();
  /** The base64 variant data binding writes and reads {@code byte[]} with. */
  static final Base64Variant BASE64 = MAPPER.getSerializationConfig().getBase64Variant();

  private ProtocolCodec() {}

  /** The message as compact JSON bytes. */
  public static byte[] write(Object message) {
    try {
      byte[] written = MessageWriters.write(message);
      return written != null ? written : MAPPER.writeValueAsBytes(message);
    } catch (IOException e) {
      throw new IllegalArgumentException("a protocol message did not write as JSON: " + e, e);
    }
  }

  /**
   * Reads a message of {@code type}.
   *
   * @throws ProtocolException when the bytes are not such a message
   */
  public static <T> T read(byte[] bytes, Class<T> type) {
    if (MessageReaders.reads(type)) {
      return readByHand(bytes, type);
    }
    return readBound(bytes, type);
  }

  private static <T> T readByHand(byte[] bytes, Class<T> type) {
    if (bytes == null) {
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: no bytes");
    }
    try {
      return type.cast(MessageReaders.read(bytes, type));
    } catch (ProtocolException e) {
      throw e;
    } catch (JsonProcessingException e) {
      JsonLocation where = e.getLocation();
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: "
          + e.getOriginalMessage() + (where == null ? "" : " (column " + where.getColumnNr()
          + ")"), e);
    } catch (IOException e) {
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: " + e, e);
    } catch (NullPointerException | IllegalArgumentException e) {
      // The record's compact constructor refused the values read: a required field was missing
      // or null (its name is the exception's message), or the values do not go together.
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: "
          + (e instanceof NullPointerException
              ? "a required value is missing or null" + (e.getMessage() == null ? ""
                  : " (" + e.getMessage() + ")")
              : e.getMessage()), e);
    } catch (RuntimeException e) { // as data binding's path does: nothing else escapes a read
      throw new ProtocolException("a " + type.getSimpleName() + " message did not read: " + e, e);
    }
  }

  /** The message as data binding writes it (the reference the hand-written writers match). */
  static byte[] writeBound(Object message) {
    try {
      return MAPPER.writeValueAsBytes(message);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a protocol message did not write as JSON: " + e, e);
    }
  }

  /** Reads a message through data binding (the reference the hand-written readers match). */
  static <T> T readBound(byte[] bytes, Class<T> type) {
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
