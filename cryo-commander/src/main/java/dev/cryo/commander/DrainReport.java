package dev.cryo.commander;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a drain did ({@link Commander#drain}). Immutable.
 *
 * @param carried the users in the reboot data (frozen during the drain or before it)
 * @param lost the users lost (their departure failed, or their worker died during its quit), sorted
 * @param quits each worker's quit
 * @param rebootData where the reboot data is, or null when the drain could not commit
 * @param failure why the drain could not commit (the working freezer then holds what was written),
 *     or null
 * @param took how long the drain took
 */
public record DrainReport(int carried, List<String> lost, List<QuitOutcome> quits,
    Path rebootData, String failure, Duration took) {

  /** Copies the lists. */
  public DrainReport {
    lost = List.copyOf(lost);
    quits = List.copyOf(quits);
    Objects.requireNonNull(took, "took");
  }

  /** Whether the reboot data was committed. */
  public boolean committed() {
    return rebootData != null;
  }

  /** The last line a drain prints: how many users were carried and how long it took. */
  public String summary() {
    String time = String.format(java.util.Locale.ROOT, "%.1f s", took.toMillis() / 1000.0);
    if (!committed()) {
      return "cryo: the drain did not commit (" + failure + "); " + users(carried)
          + (carried == 1 ? " is" : " are") + " frozen in the working freezer, which the next"
          + " start adopts; it took " + time;
    }
    return "cryo: drained: " + users(carried) + " carried into " + rebootData
        + (lost.isEmpty() ? "" : ", " + lost.size() + " lost " + lost) + " in " + time;
  }

  /** {@code "1 user"}, {@code "N users"}: a count of users as the drain's lines say it. */
  static String users(int count) {
    return count + (count == 1 ? " user" : " users");
  }
}
