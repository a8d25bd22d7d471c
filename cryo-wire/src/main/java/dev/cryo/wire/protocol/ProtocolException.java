package dev.cryo.wire.protocol;

/**
 * A protocol message that does not read. The receiving side refuses it (code
 * {@link RefusalReason#BAD_REQUEST}) and keeps the wire.
 */
public final class ProtocolException extends RuntimeException {

  ProtocolException(String message) {
    super(message);
  }

  ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }
}
