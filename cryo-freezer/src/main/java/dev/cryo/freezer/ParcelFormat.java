package dev.cryo.freezer;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The envelope every parcel is written in, and the only code that reads it.
 *
 * <p>Layout (big-endian): the magic {@code CRYOPRCL}; the format version (one byte); the header's
 * length (four bytes); the header (the write time in epoch milliseconds, then writer, cause, group
 * and codec, each a two-byte length and UTF-8); the CRC32C of everything so far; the payload's length
 * (eight bytes); the payload; the CRC32C of everything before it. The first checksum lets the header
 * be read and trusted without reading the payload; the lengths and the second one tell a complete
 * parcel from one torn by a crash or a full disk. CRC32C catches every change of up to 32
 * consecutive bits, so every single altered byte, and the exact file length catches every
 * truncation: such a parcel is a {@link FreezerException.Reason#CORRUPT_PARCEL}, never another
 * payload.
 *
 * <p>Version 1 promises that every later version keeps the magic, the version byte, the header
 * length, the header's first five fields and its checksum where they are, so a newer parcel still
 * shows its header and is then refused as {@link FreezerException.Reason#UNSUPPORTED_VERSION}.
 *
 * <p>Stateless and thread-safe.
 */
public final class ParcelFormat {

  /** The current (and only) format version. */
  public static final int VERSION = 1;

  /** The most UTF-8 bytes a header text keeps; longer ones are cut on a character boundary. */
  public static final int MAX_HEADER_TEXT = 1024;

  /** The most bytes a header can take: anything above is corruption. */
  public static final int MAX_HEADER_LENGTH = 8 + 4 * (2 + MAX_HEADER_TEXT) + 1024;

  /** How many bytes from the start of a file always hold a whole header, when the file is long enough. */
  public static final int HEADER_PREFIX_LENGTH = 8 + 1 + 4 + MAX_HEADER_LENGTH + 4;

  private static final byte[] MAGIC = "CRYOPRCL".getBytes(StandardCharsets.US_ASCII);
  private static final int FIXED = MAGIC.length + 1 + 4;
  private static final String ADVICE = "; the parcel was left as it is and nothing was read from it:"
      + " it is what a write cut short by a crash or a full disk leaves, or a file altered by"
      + " somebody else; drop it (its content is lost) and let the user start fresh";

  private ParcelFormat() {}

  /**
   * The bytes of a parcel holding {@code payload} under {@code header}.
   *
   * @param header the diagnostic header; texts longer than {@link #MAX_HEADER_TEXT} bytes are cut
   * @param payload the encoded payload
   * @return a fresh array, ready to be written as the whole file
   */
  public static byte[] encode(ParcelHeader header, byte[] payload) {
    byte[][] texts = {text(header.writer()), text(header.cause()), text(header.group()),
        text(header.codec())};
    int headerLength = 8;
    for (byte[] t : texts) {
      headerLength += 2 + t.length;
    }
    ByteBuffer out = ByteBuffer.allocate(FIXED + headerLength + 4 + 8 + payload.length + 4);
    out.put(MAGIC).put((byte) VERSION).putInt(headerLength).putLong(header.writtenAt().toEpochMilli());
    for (byte[] t : texts) {
      out.putShort((short) t.length).put(t);
    }
    out.putInt(crc(out.array(), out.position()));
    out.putLong(payload.length).put(payload);
    out.putInt(crc(out.array(), out.position()));
    return out.array();
  }

  /**
   * Reads and checks the header alone.
   *
   * @param file the file the bytes come from, named in errors
   * @param prefix the file's first bytes: at least {@link #HEADER_PREFIX_LENGTH} of them, or the whole
   *     file when it is shorter
   * @return the header, whose checksum agreed
   * @throws FreezerException {@link FreezerException.Reason#CORRUPT_PARCEL} when the bytes are not
   *     a whole, unaltered header
   */
  public static ParcelHeader decodeHeader(Path file, byte[] prefix) throws FreezerException {
    return decodeHeader(file, prefix, prefix.length);
  }

  /** {@link #decodeHeader(Path, byte[])} of the first {@code length} bytes of {@code prefix}. */
  static ParcelHeader decodeHeader(Path file, byte[] prefix, int length) throws FreezerException {
    ByteBuffer in = ByteBuffer.wrap(prefix, 0, length);
    if (length < FIXED) {
      throw corrupt(file, "it is " + length + " bytes long, shorter than any parcel");
    }
    byte[] magic = new byte[MAGIC.length];
    in.get(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw corrupt(file, "it does not start with the parcel magic");
    }
    int version = in.get() & 0xFF;
    int headerLength = in.getInt();
    if (headerLength < 8 || headerLength > MAX_HEADER_LENGTH) {
      throw corrupt(file, "its header length " + headerLength + " is impossible");
    }
    if (length < FIXED + headerLength + 4) {
      throw corrupt(file, "it ends inside its header");
    }
    int expected = ByteBuffer.wrap(prefix, FIXED + headerLength, 4).getInt();
    if (crc(prefix, FIXED + headerLength) != expected) {
      throw corrupt(file, "its header checksum does not match");
    }
    if (version != VERSION) {
      throw new FreezerException(FreezerException.Reason.UNSUPPORTED_VERSION, file, "parcel " + file
          + " has format version " + version + " and this reader knows only " + VERSION
          + "; it was left as it is: read it with the newer release that wrote it, or drop it");
    }
    try {
      long millis = in.getLong();
      String writer = readText(in);
      String cause = readText(in);
      String group = readText(in);
      String codec = readText(in);
      if (in.position() != FIXED + headerLength) {
        throw corrupt(file, "its header fields do not fill its header length");
      }
      return new ParcelHeader(writer, Instant.ofEpochMilli(millis), cause, group, codec);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw corrupt(file, "its header fields overrun its header length");
    }
  }

  /**
   * How many bytes the whole parcel says it has, read from its first bytes alone: what tells a torn
   * parcel from a whole one without reading its payload.
   *
   * @param file the file the bytes come from, named in errors
   * @param prefix the file's first bytes: at least {@link #HEADER_PREFIX_LENGTH} {@code + 8} of them,
   *     or the whole file when it is shorter
   * @return the length the parcel's lengths add up to
   * @throws FreezerException as {@link #decodeHeader}, and {@link FreezerException.Reason#CORRUPT_PARCEL}
   *     when the bytes end before the payload's length or that length is negative
   */
  public static long declaredLength(Path file, byte[] prefix) throws FreezerException {
    decodeHeader(file, prefix);
    int headerEnd = FIXED + ByteBuffer.wrap(prefix, MAGIC.length + 1, 4).getInt() + 4;
    if (prefix.length < headerEnd + 8) {
      throw corrupt(file, "it ends before its payload's length (" + prefix.length + " bytes)");
    }
    long payloadLength = ByteBuffer.wrap(prefix, headerEnd, 8).getLong();
    if (payloadLength < 0 || payloadLength > Long.MAX_VALUE - headerEnd - 12) {
      throw corrupt(file, "its payload length " + payloadLength + " is impossible");
    }
    return headerEnd + 8L + payloadLength + 4L;
  }

  /**
   * Reads and checks a whole parcel.
   *
   * @param file the file the bytes come from, named in errors
   * @param bytes the whole file
   * @return the parcel, whose lengths and checksums all agreed
   * @throws FreezerException {@link FreezerException.Reason#CORRUPT_PARCEL} when the bytes are not
   *     exactly one whole, unaltered parcel; {@link FreezerException.Reason#UNSUPPORTED_VERSION} when
   *     a newer format wrote it
   */
  public static Parcel decode(Path file, byte[] bytes) throws FreezerException {
    return decode(file, bytes, bytes.length);
  }

  /**
   * {@link #decode(Path, byte[])} of the first {@code length} bytes of {@code bytes} (what a read
   * into a buffer one byte longer than the file leaves), without copying them first.
   */
  static Parcel decode(Path file, byte[] bytes, int length) throws FreezerException {
    Span span = decodeInPlace(file, bytes, length);
    return new Parcel(span.header(), Arrays.copyOfRange(bytes, span.offset(),
        span.offset() + span.length()));
  }

  /** Where a parcel's payload lies in the bytes it was decoded from, with its header. */
  record Span(ParcelHeader header, int offset, int length) {}

  /**
   * {@link #decode(Path, byte[], int)} without copying the payload out: the same checks, and where
   * the payload lies in {@code bytes}.
   */
  static Span decodeInPlace(Path file, byte[] bytes, int length) throws FreezerException {
    ParcelHeader header = decodeHeader(file, bytes, length);
    int headerEnd = FIXED + ByteBuffer.wrap(bytes, MAGIC.length + 1, 4).getInt() + 4;
    if (length < headerEnd + 8 + 4) {
      throw corrupt(file, "it ends before its payload (" + length + " bytes)");
    }
    long payloadLength = ByteBuffer.wrap(bytes, headerEnd, 8).getLong();
    long expectedLength = headerEnd + 8L + payloadLength + 4L;
    if (payloadLength < 0 || expectedLength != length) {
      throw corrupt(file, "it is " + length + " bytes long but its lengths say "
          + (payloadLength < 0 ? "a negative payload" : expectedLength + " bytes"));
    }
    int end = length - 4;
    if (crc(bytes, end) != ByteBuffer.wrap(bytes, end, 4).getInt()) {
      throw corrupt(file, "its checksum does not match");
    }
    return new Span(header, headerEnd + 8, end - headerEnd - 8);
  }

  private static FreezerException corrupt(Path file, String what) {
    return new FreezerException(FreezerException.Reason.CORRUPT_PARCEL, file,
        "parcel " + file + " is corrupt: " + what + ADVICE);
  }

  private static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }

  private static byte[] text(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_HEADER_TEXT) {
      return bytes;
    }
    int cut = MAX_HEADER_TEXT;
    while (cut > 0 && (bytes[cut] & 0xC0) == 0x80) {
      cut--;
    }
    return Arrays.copyOf(bytes, cut);
  }

  private static String readText(ByteBuffer in) {
    int length = in.getShort() & 0xFFFF;
    if (length > MAX_HEADER_TEXT) {
      throw new IllegalArgumentException("header text too long");
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
