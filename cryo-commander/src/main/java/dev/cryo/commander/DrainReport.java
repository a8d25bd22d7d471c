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
 * @param staying the users a refused drain could not write, each with why, sorted: they stay
 *     alive and served on their workers, the run serves on, and nothing was quit, committed or
 *     deleted ({@link #refused()}); empty when the drain went on to quit its workers
 */
public record DrainReport(List<String> carriedUsers, Map<String, String> notCarried,
    List<QuitOutcome> quits, Path rebootData, String failure, Duration took,
    Map<String, String> staying) {

  /** What an operator does after a refused drain; in its event and its summary. */
  public static final String WHAT_TO_DO = "free space in the freezer's file system, then ask the"
      + " drain again (cryo stop, or SIGTERM / Ctrl-C of cryo serve); cryo stop --mode now would"
      + " lose the users who stay";

  /** Copies the lists and the maps, sorted. */
  public DrainReport {
    carriedUsers = List.copyOf(new TreeSet<>(carriedUsers));
    notCarried = java.util.Collections.unmodifiableMap(new TreeMap<>(notCarried));
    staying = java.util.Collections.unmodifiableMap(new TreeMap<>(staying));
    quits = List.copyOf(quits);
    Objects.requireNonNull(took, "took");
  }

  /** A report of a drain that went on to quit its workers: nobody {@linkplain #staying stays}. */
  public DrainReport(List<String> carriedUsers, Map<String, String> notCarried,
      List<QuitOutcome> quits, Path rebootData, String failure, Duration took) {
    this(carriedUsers, notCarried, quits, rebootData, failure, took, Map.of());
  }

  /**
   * Whether the drain was refused because some users could not be written: the run was not
   * stopped and serves on, those users ({@link #staying}) alive on their workers.
   */
  public boolean refused() {
    return !staying.isEmpty();
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
    if (refused()) {
      return "cryo: the drain was refused: " + users(staying.size()) + " could not be written and"
          + (staying.size() == 1 ? " stays" : " stay") + " awake and served on "
          + (staying.size() == 1 ? "his worker " : "their workers ") + staying
          + "; nothing was committed or deleted, and the run serves on (the users frozen"
          + " meanwhile are in the working freezer and wake on their next request): " + WHAT_TO_DO
          + "; it took " + time;
    }
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
