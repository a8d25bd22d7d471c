package dev.cryo.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Encodes frames into bytes and parses a frame's JSON header strictly: valid UTF-8 only, one JSON
 * object, only the fields of its kind, each once and of its type, nothing after it.
 * Thread-safe for encoding; {@link #parseHeader} is called by one reader at a time per instance.
 */
final class FrameCodec {

  /** Jackson's streaming factory: duplicate keys refused; NaN, comments and the like stay off. */
  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT);

  private FrameCodec() {
  }

  /** A codec for one reader (its UTF-8 decoder is its own). */
  static FrameCodec forReader() {
    return new FrameCodec();
  }

  /**
   * The JSON header of a frame, compact, UTF-8.
   *
   * @param id the call id (ignored for EVENT)
   * @param code the error code (ERROR only)
   * @param message the error message (ERROR only), cut to {@link Frame#MAX_MESSAGE_CHARS}
   */
  static byte[] header(FrameKind kind, long id, String method, String code, String message) {
    if (kind != FrameKind.ERROR) {
      // A method name is ASCII without quotes or backslashes (Frame.isName): nothing to escape,
      // so the two common headers are written directly, as Jackson would write them.
      String text = kind == FrameKind.EVENT ? "{\"method\":\"" + method + "\"}"
          : "{\"id\":" + id + ",\"method\":\"" + method + "\"}";
      return text.getBytes(StandardCharsets.US_ASCII);
    }
    ByteArrayBuilder out = new ByteArrayBuilder(64);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      if (kind != FrameKind.EVENT) {
        json.writeNumberField("id", id);
      }
      json.writeStringField("method", method);
      if (kind == FrameKind.ERROR) {
        json.writeStringField("code", code);
        json.writeStringField("message", message.length() > Frame.MAX_MESSAGE_CHARS
            ? message.substring(0, Frame.MAX_MESSAGE_CHARS) : message);
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen: writing JSON into memory failed", e);
    }
    return out.toByteArray();
  }

  /**
   * A frame ready to be written: its prelude and header in one small array, its payload as the
   * caller gave it (not copied: it is read while the frame is written, on the writing thread).
   * Keeping the two apart spares a copy of every payload into a frame array, the largest
   * allocation of an outbound frame (docs/benchmarks.md, "Issue 9, wire, pass 6"); {@link
   * ChannelIo#writeFrame} writes them together.
   */
  record Outbound(byte[] head, byte[] payload) {
    /** The frame's length in bytes. */
    int length() {
      return head.length + payload.length;
    }
  }

  /**
   * A frame to write: the prelude and header encoded, the payload kept as it is.
   *
   * @throws WireRefusedException FRAME_TOO_LARGE when the frame passes a limit
   */
  static Outbound frame(FrameKind kind, byte[] header, byte[] payload, WireLimits limits) {
    checkSize(header.length, payload.length, limits);
    byte[] head = prelude(kind, header.length, payload.length);
    System.arraycopy(header, 0, head, Frame.PRELUDE_BYTES, header.length);
    return new Outbound(head, payload);
  }

  /**
   * A call, reply or event to write, its header ({@code {"id":N,"method":"M"}}, or {@code
   * {"method":"M"}} for an event) encoded straight into its head after the prelude: the bytes of
   * {@link #header}, without the string and the array in between (one array per frame).
   *
   * @param method a valid name ({@link Frame#isName}: ASCII, nothing to escape)
   * @throws WireRefusedException FRAME_TOO_LARGE when the frame passes a limit
   * @throws IllegalArgumentException for an error frame (its header has a code and a message)
   */
  static Outbound frame(FrameKind kind, long id, String method, byte[] payload,
      WireLimits limits) {
    if (kind == FrameKind.ERROR) {
      throw new IllegalArgumentException("an error frame's header has a code and a message:"
          + " encode it with header()");
    }
    boolean event = kind == FrameKind.EVENT;
    int headerBytes = (event ? EVENT_HEAD.length : CALL_HEAD.length + digits(id) + ID_TAIL.length)
        + method.length() + HEAD_END.length;
    checkSize(headerBytes, payload.length, limits);
    byte[] head = prelude(kind, headerBytes, payload.length);
    int at = Frame.PRELUDE_BYTES;
    if (event) {
      at = put(head, at, EVENT_HEAD);
    } else {
      at = put(head, at, CALL_HEAD);
      at += digits(id);
      putDigits(head, at, id);
      at = put(head, at, ID_TAIL);
    }
    for (int i = 0; i < method.length(); i++) {
      head[at++] = (byte) method.charAt(i);
    }
    put(head, at, HEAD_END);
    return new Outbound(head, payload);
  }

  private static final byte[] CALL_HEAD = "{\"id\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ID_TAIL = ",\"method\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT_HEAD = "{\"method\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEAD_END = "\"}".getBytes(StandardCharsets.US_ASCII);

  /** A head of the given header length with its prelude written, the header still to come. */
  private static byte[] prelude(FrameKind kind, int headerBytes, int payloadBytes) {
    byte[] head = new byte[Frame.PRELUDE_BYTES + headerBytes];
    putInt(head, 0, Frame.MAGIC);
    head[4] = Frame.VERSION;
    head[5] = kind.code;
    putInt(head, 6, headerBytes);
    putInt(head, 10, payloadBytes);
    return head;
  }

  /** Big-endian, as the prelude's lengths are read. */
  private static void putInt(byte[] into, int at, int value) {
    into[at] = (byte) (value >>> 24);
    into[at + 1] = (byte) (value >>> 16);
    into[at + 2] = (byte) (value >>> 8);
    into[at + 3] = (byte) value;
  }

  private static int put(byte[] into, int at, byte[] bytes) {
    System.arraycopy(bytes, 0, into, at, bytes.length);
    return at + bytes.length;
  }

  /** How many characters Long.toString(value) has. */
  static int digits(long value) {
    int n = value < 0 ? 1 : 0;
    long v = value < 0 ? value : -value; // negative, so that Long.MIN_VALUE works too
    do {
      n++;
      v /= 10;
    } while (v != 0);
    return n;
  }

  /** Writes Long.toString(value) as ASCII, its last character just before end. */
  private static void putDigits(byte[] into, int end, long value) {
    long v = value < 0 ? value : -value;
    int at = end;
    do {
      into[--at] = (byte) ('0' - (v % 10));
      v /= 10;
    } while (v != 0);
    if (value < 0) {
      into[--at] = '-';
    }
  }

  /**
   * The whole frame's bytes: prelude, header, payload, in one array (frames written next to each
   * other in one burst; a single frame is written as {@link #frame}, without this copy).
   *
   * @throws WireRefusedException FRAME_TOO_LARGE when the frame passes a limit
   */
  static byte[] encode(FrameKind kind, byte[] header, byte[] payload, WireLimits limits) {
    Outbound frame = frame(kind, header, payload, limits);
    byte[] bytes = java.util.Arrays.copyOf(frame.head(), frame.length());
    System.arraycopy(payload, 0, bytes, frame.head().length, payload.length);
    return bytes;
  }

  /** Refuses a frame past the limits, before anything is sent. */
  static void checkSize(int headerBytes, int payloadBytes, WireLimits limits) {
    long frameBytes = (long) Frame.PRELUDE_BYTES + headerBytes + payloadBytes;
    if (headerBytes > limits.maxHeaderBytes() || frameBytes > limits.maxFrameBytes()) {
      throw new WireRefusedException(WireException.Reason.FRAME_TOO_LARGE, "frame refused: "
          + frameBytes + " bytes (header " + headerBytes + ") pass the limits (frame "
          + limits.maxFrameBytes() + ", header " + limits.maxHeaderBytes()
          + "); nothing was sent and the wire stays open; send a smaller payload");
    }
  }

  /**
   * Parses a header strictly into a frame with the given payload.
   *
   * @throws MalformedFrameException {@code bad_header} for invalid UTF-8, invalid JSON, an
   *     unexpected, missing, repeated or mistyped field, or anything after the object
   */
  Frame parseHeader(FrameKind kind, byte[] header, byte[] payload)
      throws MalformedFrameException {
    Frame common = parseCommon(kind, header, payload);
    return common != null ? common : parseStrict(kind, header, payload);
  }

  /** {@link #parseHeader} without its fast path: every header through the strict parser. */
  Frame parseStrict(FrameKind kind, byte[] header, byte[] payload)
      throws MalformedFrameException {
    String text;
    try {
      text = utf8.reset().decode(ByteBuffer.wrap(header)).toString();
    } catch (CharacterCodingException e) {
      throw bad(kind, "it is not valid UTF-8");
    }
    long id = 0;
    String method = null;
    String code = null;
    String message = null;
    try (JsonParser json = JSON.createParser(text)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        throw bad(kind, "it is not a JSON object");
      }
      for (JsonToken token = json.nextToken(); token != JsonToken.END_OBJECT;
          token = json.nextToken()) {
        String field = json.currentName();
        JsonToken value = json.nextToken();
        switch (field) {
          case "id" -> {
            if (kind == FrameKind.EVENT || value != JsonToken.VALUE_NUMBER_INT
                || json.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || (id = json.getLongValue()) < 1) {
              throw bad(kind, "its field 'id' is not allowed or not an integer from 1 to 2^63-1");
            }
          }
          case "method" -> method = string(kind, json, value, "method");
          case "code" -> code = string(kind, json, value, "code");
          case "message" -> message = string(kind, json, value, "message");
          default -> throw bad(kind, "it has a field that is not expected");
        }
      }
      if (json.nextToken() != null) {
        throw bad(kind, "something follows the JSON object");
      }
    } catch (JsonProcessingException e) {
      throw bad(kind, "it is not strict JSON (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw bad(kind, "it cannot be read (" + e.getMessage() + ")");
    }
    if (!Frame.isName(method) || (kind != FrameKind.EVENT && id == 0)) {
      throw bad(kind, "it lacks a valid 'method'" + (kind == FrameKind.EVENT ? "" : " or 'id'"));
    }
    if (kind == FrameKind.ERROR) {
      if (!Frame.isName(code) || message == null) {
        throw bad(kind, "it lacks a valid 'code' or 'message'");
      }
    } else if (code != null || message != null) {
      throw bad(kind, "only an error reply has 'code' and 'message'");
    }
    return new Frame(kind, id, method, code, message, payload);
  }

  private static final byte[] ID_OPEN = "{\"id\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] METHOD_OPEN = "\"method\":\"".getBytes(StandardCharsets.US_ASCII);

  /**
   * The fast path of {@link #parseHeader} for the two headers this codec writes itself, byte for
   * byte: {@code {"id":N,"method":"M"}} (a call or a reply) and {@code {"method":"M"}} (an event),
   * N 1 to 18 digits without a leading zero and M a valid name (nothing to escape in it). Such a
   * header reads the same through Jackson; any other header (an error reply's, spaces, another
   * order, escapes...) returns null and takes the strict path, which alone refuses.
   */
  static Frame parseCommon(FrameKind kind, byte[] header, byte[] payload) {
    if (kind == FrameKind.ERROR) {
      return null;
    }
    int at = 0;
    long id = 0;
    if (kind != FrameKind.EVENT) {
      if (!startsWith(header, 0, ID_OPEN)) {
        return null;
      }
      at = ID_OPEN.length;
      int digits = 0;
      while (at < header.length && header[at] >= '0' && header[at] <= '9') {
        if (digits == 0 && header[at] == '0') {
          return null;
        }
        id = id * 10 + (header[at] - '0');
        at++;
        digits++;
      }
      if (digits == 0 || digits > 18 || at >= header.length || header[at] != ',') {
        return null;
      }
      at++;
    } else {
      if (header.length == 0 || header[0] != '{') {
        return null;
      }
      at = 1;
    }
    if (!startsWith(header, at, METHOD_OPEN)) {
      return null;
    }
    int from = at + METHOD_OPEN.length;
    int end = header.length - 2; // the closing quote and brace
    if (end - from < 1 || end - from > Frame.MAX_NAME_CHARS || header[end] != '"'
        || header[end + 1] != '}') {
      return null;
    }
    for (int i = from; i < end; i++) {
      byte c = header[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == '.' || c == ':' || c == '/' || c == '-')) {
        return null;
      }
    }
    String method = new String(header, from, end - from, StandardCharsets.US_ASCII);
    return new Frame(kind, id, method, null, null, payload);
  }

  private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
    if (bytes.length - at < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (bytes[at + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private static String string(FrameKind kind, JsonParser json, JsonToken value, String field)
      throws IOException, MalformedFrameException {
    if (value != JsonToken.VALUE_STRING) {
      throw bad(kind, "its field '" + field + "' is not a string");
    }
    return json.getText();
  }

  private static MalformedFrameException bad(FrameKind kind, String why) {
    return new MalformedFrameException("bad_header",
        "the header of a " + kind.name().toLowerCase(java.util.Locale.ROOT) + " frame was refused: "
            + why);
  }
}
