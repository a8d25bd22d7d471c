package dev.cryo.wire;

/** The kind byte of a frame (docs/wire.md, "Kinds"). */
enum FrameKind {
  /** A call: header {@code {id, method}}; a reply or an error reply answers it. */
  CALL(1),
  /** A reply: header {@code {id, method}}, the method of the call it answers. */
  REPLY(2),
  /** An error reply: header {@code {id, method, code, message}}, empty payload. */
  ERROR(3),
  /** An event: header {@code {method}}; nothing answers it. */
  EVENT(4);

  private static final FrameKind[] BY_BYTE = {null, CALL, REPLY, ERROR, EVENT};

  final byte code;

  FrameKind(int code) {
    this.code = (byte) code;
  }

  /** The kind of a kind byte, or null when the byte names none. */
  static FrameKind of(byte code) {
    return code >= 1 && code < BY_BYTE.length ? BY_BYTE[code] : null;
  }
}
