package dev.cryo.chaos.check;

import java.util.List;
import java.util.Objects;

/**
 * One anomaly found in a run.
 *
 * @param kind what is wrong
 * @param register the register it concerns: a user name, or {@code page:ID} for a page
 * @param operations the ids of the operations involved (as in the history's {@code op})
 * @param seconds for each operation, the time it completed (or was invoked, when it never
 *     completed), in seconds since the run began (the history's {@code t})
 * @param explanation one line saying what was seen, with the values
 */
public record Anomaly(AnomalyKind kind, String register, List<Long> operations,
    List<Double> seconds, String explanation) {

  /** Checks the fields and copies the lists. */
  public Anomaly {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(register, "register");
    Objects.requireNonNull(explanation, "explanation");
    operations = List.copyOf(operations);
    seconds = List.copyOf(seconds);
    if (operations.size() != seconds.size()) {
      throw new IllegalArgumentException("one time per operation: " + operations + " " + seconds);
    }
  }

  /** When the anomaly became visible: the latest of its operations' times (0 when it has none). */
  public double at() {
    double at = 0;
    for (double second : seconds) {
      at = Math.max(at, second);
    }
    return at;
  }

  /** One line: kind, register, time, operations and explanation. */
  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%s [%s] at %.3f s, ops %s: %s", kind, register,
        at(), operations, explanation);
  }
}
