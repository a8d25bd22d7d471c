package dev.cryo.wire;

/**
 * A frame that breaks the protocol; its reader closes the wire with {@code code: message}. Never
 * leaves the package.
 */
final class MalformedFrameException extends Exception {

  private final String code;

  MalformedFrameException(String code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  /** The close code (docs/wire.md, "What closes a wire"). */
  String code() {
    return code;
  }

  /** The reason given to the handler: {@code code: message}. */
  String reason() {
    return code + ": " + getMessage();
  }
}
