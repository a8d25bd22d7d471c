package dev.cryo.commander;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a drain did ({@link Commander#drain}): every user it carried and every one it did not, with
 * why. Immutable.
 *
 * @param carriedUsers the users in the reboot data (frozen during the drain or before it), sorted
 * @param notCarried the users the maps knew that are not in it, each with why (his departure
 *     failed, his worker died during its quit, he was awake when the item was written), sorted
 * @param quits each worker's quit
 * @param rebootData where the reboot data is, or null when the drain could not commit
 * @param failure why the drain could not commit (the working freezer then holds what was written),
 *     or null
 * @param took how long the drain took
 */
public record DrainReport(List<String> carriedUsers, Map<String, String> notCarried,
    List<QuitOutcome> quits, Path rebootData, String failure, Duration took) {

  /** Copies the lists and the map, sorted. */
  public DrainReport {
    carriedUsers = List.copyOf(new TreeSet<>(carriedUsers));
    notCarried = java.util.Collections.unmodifiableMap(new TreeMap<>(notCarried));
    quits = List.copyOf(quits);
    Objects.requireNonNull(took, "took");
  }

  /** How many users were carried. */
  public int carried() {
    return carriedUsers.size();
  }

  /** The users not carried, sorted: lost (they must log in again). */
  public List<String> lost() {
    return List.copyOf(notCarried.keySet());
  }

  /** Whether the reboot data was committed. */
  public boolean committed() {
    return rebootData != null;
  }

  /** The last line a drain prints: how many users were carried, who was not and why, how long. */
  public String summary() {
    String time = String.format(java.util.Locale.ROOT, "%.1f s", took.toMillis() / 1000.0);
    String left = notCarried.isEmpty() ? "" : ", " + notCarried.size() + " not carried "
        + notCarried;
    if (!committed()) {
      return "cryo: the drain did not commit (" + failure + "); " + users(carried())
          + (carried() == 1 ? " is" : " are") + " frozen in the working freezer, which the next"
          + " start adopts" + left + "; it took " + time;
    }
    return "cryo: drained: " + users(carried()) + " carried into " + rebootData + left + " in "
        + time;
  }

  /** {@code "1 user"}, {@code "N users"}: a count of users as the drain's lines say it. */
  static String users(int count) {
    return count + (count == 1 ? " user" : " users");
  }
}
