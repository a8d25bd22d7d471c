package dev.cryo.wire.protocol;

/**
 * The payload of {@code quit}: how the worker paces its quit. Either part may be absent (null, or
 * the empty object {@code {}}): the worker's own setting is used then.
 *
 * @param gateMillis how long after the order the departures start; 0 when the commander holds the
 *     worker's users already (no new call can come), or null for the worker's own gate
 * @param graceMillis how long after the gate calls still in flight are waited for before their
 *     users are frozen with them cut, or null for the worker's own grace
 */
public record QuitOrder(Long gateMillis, Long graceMillis) {

  /** Checks that neither part is negative. */
  public QuitOrder {
    if ((gateMillis != null && gateMillis < 0) || (graceMillis != null && graceMillis < 0)) {
      throw new IllegalArgumentException("a quit's gate and grace are not negative, got "
          + gateMillis + " and " + graceMillis);
    }
  }
}
