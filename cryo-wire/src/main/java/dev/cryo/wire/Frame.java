package dev.cryo.wire;

/**
 * One frame, decoded: its kind, its header's fields and its opaque payload. The layout on the
 * stream is docs/wire.md's: a 14-byte prelude (magic {@code CRYW}, version, kind, header length
 * u32, payload length u32, big-endian), a strict UTF-8 JSON header, then the payload.
 *
 * @param kind the kind
 * @param id the call's id (CALL, REPLY, ERROR: at least 1); 0 for an EVENT
 * @param method the method named in the header
 * @param code the error code (ERROR only, else null)
 * @param message the error message (ERROR only, else null)
 * @param payload the payload (empty for an ERROR)
 */
record Frame(FrameKind kind, long id, String method, String code, String message,
    byte[] payload) {

  /** The magic bytes that open every frame: ASCII {@code CRYW}. */
  static final int MAGIC = 0x43525957;
  /** The one version of the frame layout this code speaks. */
  static final byte VERSION = 1;
  /** Magic (4) + version (1) + kind (1) + header length (4) + payload length (4). */
  static final int PRELUDE_BYTES = 14;
  /** The longest method name or error code. */
  static final int MAX_NAME_CHARS = 128;
  /** Longer error messages are cut to this many characters before sending. */
  static final int MAX_MESSAGE_CHARS = 4096;

  /** Whether a string is a valid method name or error code: 1 to 128 of [A-Za-z0-9_.:/-]. */
  static boolean isName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_CHARS) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == '.' || c == ':' || c == '/' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns a method name or error code when it is valid.
   *
   * @throws IllegalArgumentException when it is not
   */
  static String checkName(String what, String name) {
    if (!isName(name)) {
      throw new IllegalArgumentException(what + " refused: " + (name == null ? "null" : "'" + name
          + "'") + " is not 1 to " + MAX_NAME_CHARS + " characters of [A-Za-z0-9_.:/-]");
    }
    return name;
  }
}
