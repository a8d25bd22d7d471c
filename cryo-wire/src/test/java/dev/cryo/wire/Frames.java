package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;

/** Raw frames for tests that play a hostile peer. */
final class Frames {

  private Frames() {
  }

  /** A frame with any prelude fields and header bytes. */
  static byte[] raw(int magic, int version, int kind, byte[] header, byte[] payload) {
    return ByteBuffer.allocate(14 + header.length + payload.length)
        .putInt(magic).put((byte) version).put((byte) kind)
        .putInt(header.length).putInt(payload.length).put(header).put(payload).array();
  }

  /** A well-formed frame of a kind with a JSON header text. */
  static byte[] frame(int kind, String header, byte[] payload) {
    return raw(Frame.MAGIC, 1, kind, header.getBytes(UTF_8), payload);
  }

  static byte[] call(long id, String method, String payload) {
    return frame(1, "{\"id\":" + id + ",\"method\":\"" + method + "\"}", payload.getBytes(UTF_8));
  }

  static byte[] reply(long id, String method, String payload) {
    return frame(2, "{\"id\":" + id + ",\"method\":\"" + method + "\"}", payload.getBytes(UTF_8));
  }

  static byte[] event(String method, String payload) {
    return frame(4, "{\"method\":\"" + method + "\"}", payload.getBytes(UTF_8));
  }

  /** A prelude alone, announcing lengths it does not carry. */
  static byte[] prelude(int kind, long headerLength, long payloadLength) {
    return ByteBuffer.allocate(14).putInt(Frame.MAGIC).put((byte) 1).put((byte) kind)
        .putInt((int) headerLength).putInt((int) payloadLength).array();
  }

  static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] part : parts) {
      length += part.length;
    }
    ByteBuffer all = ByteBuffer.allocate(length);
    for (byte[] part : parts) {
      all.put(part);
    }
    return all.array();
  }
}
