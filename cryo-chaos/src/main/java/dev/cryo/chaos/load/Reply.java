package dev.cryo.chaos.load;

/**
 * What one reply of the run said, as far as the checker cares. Fields the reply did not carry are
 * {@code null}.
 *
 * @param status the HTTP status
 * @param error the body's {@code error} code; for a body that is not JSON, {@code http_STATUS}
 *     (with the {@code Cryo-Reason} header appended when there is one)
 * @param user the body's {@code user}
 * @param counter the body's {@code counter}
 * @param pageCounter the body's {@code pageCounter}
 * @param noteMax the highest note number of this harness among the body's {@code notes}
 * @param notes how many {@code notes} the body listed
 * @param worker the body's {@code worker} (or a move's {@code to})
 * @param page the body's {@code page} (a page opened)
 * @param servedBy the worker that served the call, from the run's placement header
 * @param generation the placement's generation, from the same header
 * @param cookie the connection cookie the reply set, or null when it set none
 * @param message for a refusal: the body's {@code message}, or the start of a body that is not
 *     JSON; else null
 */
public record Reply(int status, String error, String user, Long counter, Long pageCounter,
    Long noteMax, Integer notes, String worker, String page, String servedBy, Long generation,
    String cookie, String message) {

  /** Whether the operation was done: 2xx, or a login's 303. */
  public boolean done() {
    return status / 100 == 2 || status == 303;
  }

  /**
   * Whether the docs say the operation was definitely not done: a 4xx, or a 503 (held past the
   * wait, saturated, not running). A 502 (the worker died after the call reached it) and a 500 are
   * unknown, as is a 503 {@code not_durable}: the call ran and what it wrote is kept, but it is not
   * known to be on disk (a login answered so took effect, its new cookie with it).
   */
  public boolean refused() {
    return status / 100 == 4 || status == 503 && !NOT_DURABLE.equals(error);
  }

  /** The error of a durable call that ran but whose checkpoint was not forced to disk. */
  static final String NOT_DURABLE = "not_durable";
}
