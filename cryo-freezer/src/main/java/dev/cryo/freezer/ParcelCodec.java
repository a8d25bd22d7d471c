package dev.cryo.freezer;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a payload into bytes and back. The freezer names the codec in each parcel's header and
 * refuses to read a parcel written by another one.
 *
 * <p>A codec must never instantiate a class named by the bytes it reads: a parcel planted by somebody
 * else must at worst be refused. Implementations must be thread-safe.
 */
public interface ParcelCodec {

  /**
   * The codec's name, written in every parcel's header; a short ASCII word that changes whenever the
   * encoding does.
   */
  String name();

  /**
   * Encodes {@code payload}.
   *
   * @throws IllegalArgumentException when the payload holds a value this codec does not map (the
   *     message names the value's type and where it sits)
   */
  byte[] encode(Object payload);

  /**
   * Decodes what {@link #encode} produced.
   *
   * @throws IOException when the bytes are not a payload of this codec; the freezer reports it as
   *     {@link FreezerException.Reason#INVALID_PAYLOAD}, naming the file
   */
  Object decode(byte[] bytes) throws IOException;

  /**
   * Decodes what {@link #encode} produced, found at {@code offset} in {@code bytes}, {@code length}
   * bytes long (what lies around it is not looked at); the same contract as {@link #decode(byte[])}.
   * The default copies the range out and decodes the copy.
   *
   * @throws IndexOutOfBoundsException when the range does not lie within {@code bytes}
   */
  default Object decode(byte[] bytes, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    return decode(offset == 0 && length == bytes.length ? bytes
        : Arrays.copyOfRange(bytes, offset, offset + length));
  }

  /**
   * The built-in codec written under {@code name} in parcel headers ({@value SmileCodec#NAME} or
   * {@value CborCodec#NAME}), for readers such as tools that meet parcels of either.
   *
   * @return the codec (one shared, thread-safe instance), or empty for a name no built-in codec
   *     writes
   */
  static Optional<ParcelCodec> builtIn(String name) {
    return switch (name) {
      case SmileCodec.NAME -> Optional.of(SmileCodec.SHARED);
      case CborCodec.NAME -> Optional.of(CborCodec.SHARED);
      default -> Optional.empty();
    };
  }
}
