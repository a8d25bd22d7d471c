package dev.cryo.wire;

import java.util.regex.Pattern;

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

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:/-]{1," + MAX_NAME_CHARS + "}");

  /** Whether a string is a valid method name or error code. */
  static boolean isName(String name) {
    return name != null && NAME.matcher(name).matches();
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
