package dev.cryo.front;

/** The front could not start; the message says why and what to do. */
public final class FrontException extends RuntimeException {

  FrontException(String message, Throwable cause) {
    super(message, cause);
  }
}
