package dev.cryo.app;

import java.util.Objects;

/**
 * Thrown by a handler to answer an error: the status, and a JSON body
 * {@code {"error": CODE, "message": TEXT}}. Not logged: it is an answer, not a failure.
 *
 * <pre>{@code
 * if (body.text().isBlank()) {
 *   throw new Refusal(400, "empty_note", "a note needs some text; nothing was added");
 * }
 * }</pre>
 */
public class Refusal extends RuntimeException {

  private final int status;
  private final String code;

  /**
   * A refusal.
   *
   * @param status the HTTP status, 400 to 599
   * @param code the machine-readable reason, in {@code snake_case}
   * @param message what happened, what was kept, what to do
   */
  public Refusal(int status, String code, String message) {
    super(message);
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("a refusal's status is 400 to 599, got " + status);
    }
    this.status = status;
    this.code = Objects.requireNonNull(code, "code");
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** The machine-readable reason. */
  public String code() {
    return code;
  }
}
