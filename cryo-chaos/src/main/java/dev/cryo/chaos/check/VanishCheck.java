package dev.cryo.chaos.check;

import java.util.List;
import java.util.Map;

/**
 * Vanished users: a virtual user (one cookie) whose replies switch from user U to another name
 * with no login of that virtual user in flight around the switch — the server forgot his
 * connection and made it a new guest. When U had acked increments by then and no loss of U is
 * documented around the switch, it is a {@link AnomalyKind#LOST_WRITE}.
 *
 * <p>Replies are taken in completion order. Two consecutive ones, A naming U and B naming V, were
 * served on either side of the change of identity — in either order, since a reply served first
 * may arrive last — so what changed it happened somewhere in
 * {@code [min(invoke(A), invoke(B)), completion(B)]}: any login of the virtual user (whatever its
 * outcome) overlapping that span excuses the switch, and so does a documented loss of U or of V in
 * it (widened by the slack). Otherwise it is reported when U or V had an acked increment completed
 * by then (a guest with nothing written loses nothing).
 */
final class VanishCheck {

  private VanishCheck() {}

  /**
   * Checks every virtual user.
   *
   * @param firstAckedIncrement per user, when his first acked increment completed ({@code t})
   */
  static void check(Operations operations, Losses losses, Map<String, Long> firstAckedIncrement,
      Findings findings) {
    for (Map.Entry<String, List<Operation>> entry : operations.repliesByVuser.entrySet()) {
      List<Operation> replies = entry.getValue();
      Logins logins = new Logins(operations.loginsByVuser.getOrDefault(entry.getKey(),
          List.of()));
      for (int i = 1; i < replies.size(); i++) {
        Operation before = replies.get(i - 1);
        Operation after = replies.get(i);
        String user = before.user();
        String other = after.user();
        if (user.equals(other)) {
          continue;
        }
        if (!ackedBefore(firstAckedIncrement, user, after)
            && !ackedBefore(firstAckedIncrement, other, after)) {
          continue; // nothing acked to lose
        }
        long fromT = Math.min(before.invokeT(), after.invokeT());
        if (logins.overlap(fromT, after.completeT())) {
          continue;
        }
        long fromWall = Math.min(before.invokeWall(), after.invokeWall()) - Epochs.SLACK_MILLIS;
        long toWall = after.completeWall() + Epochs.SLACK_MILLIS;
        if (Epochs.anyWithin(losses.lossesOf(user), fromWall, toWall)
            || Epochs.anyWithin(losses.lossesOf(other), fromWall, toWall)) {
          continue;
        }
        findings.add(AnomalyKind.LOST_WRITE, user, "vuser " + entry.getKey() + " was user "
            + user + " (" + before.describe() + ") and then " + other + " ("
            + after.describe() + ") with no login in flight and no loss of either documented:"
            + " his connection was forgotten, with acked increments", before, after);
      }
    }
  }

  private static boolean ackedBefore(Map<String, Long> firstAckedIncrement, String user,
      Operation after) {
    Long first = firstAckedIncrement.get(user);
    return first != null && first < after.completeT();
  }

  /** One virtual user's logins, by invocation, for "any in flight during" questions. */
  private static final class Logins {
    private final long[] invoked;
    private final long[] latestCompletion;

    Logins(List<Operation> logins) {
      invoked = new long[logins.size()];
      latestCompletion = new long[logins.size()];
      long latest = Long.MIN_VALUE;
      for (int i = 0; i < invoked.length; i++) {
        invoked[i] = logins.get(i).invokeT();
        latest = Math.max(latest, logins.get(i).completeT());
        latestCompletion[i] = latest;
      }
    }

    /** Whether a login's span meets {@code [from, to]} (logins are sorted by invocation). */
    boolean overlap(long from, long to) {
      int started = Epochs.countAtMost(invoked, to);
      return started > 0 && latestCompletion[started - 1] >= from;
    }
  }
}
