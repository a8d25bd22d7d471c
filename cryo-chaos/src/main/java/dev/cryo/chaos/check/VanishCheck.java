package dev.cryo.chaos.check;

import java.util.HashMap;
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
 * outcome) overlapping that span excuses the switch, and so does a login of unknown outcome
 * ({@code info}) to U or V invoked before the switch's end, since it may act after the client gave
 * up (a forgotten connection becomes a new guest, never a login's target); and so does a
 * documented loss, in the span widened by the slack, of any identity the virtual user may have had
 * ({@link Operations#identitiesOf}: between A and B he may have been the target of a login whose
 * reply never came, and been lost as that one). Otherwise it is reported when U or V had an acked
 * increment completed by then (a guest with nothing written loses nothing).
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
      long[] identityLosses = losses.lossesOfAny(operations.identitiesOf(entry.getKey()));
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
        if (logins.overlap(fromT, after.completeT())
            || logins.mayHaveLoggedInAs(user, after.completeT())
            || logins.mayHaveLoggedInAs(other, after.completeT())) {
          continue;
        }
        long fromWall = Math.min(before.invokeWall(), after.invokeWall()) - Epochs.SLACK_MILLIS;
        long toWall = after.completeWall() + Epochs.SLACK_MILLIS;
        if (Epochs.anyWithin(identityLosses, fromWall, toWall)) {
          continue;
        }
        findings.add(AnomalyKind.LOST_WRITE, user, "vuser " + entry.getKey() + " was user "
            + user + " (" + before.describe() + ") and then " + other + " ("
            + after.describe() + ") with no login in flight and no loss of his documented:"
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
    private final Map<String, Long> lateTargets = new HashMap<>();

    Logins(List<Operation> logins) {
      invoked = new long[logins.size()];
      latestCompletion = new long[logins.size()];
      long latest = Long.MIN_VALUE;
      for (int i = 0; i < invoked.length; i++) {
        Operation login = logins.get(i);
        invoked[i] = login.invokeT();
        latest = Math.max(latest, login.completeT());
        latestCompletion[i] = latest;
        if (Operations.mayActLate(login) && login.invoke().arg() != null) {
          lateTargets.merge(login.invoke().arg(), login.invokeT(), Math::min);
        }
      }
    }

    /**
     * Whether a login of unknown outcome to {@code user} was invoked by {@code t}: it may have
     * acted any time after, even once the client gave up.
     */
    boolean mayHaveLoggedInAs(String user, long t) {
      Long invoked = lateTargets.get(user);
      return invoked != null && invoked <= t;
    }

    /** Whether a login's span meets {@code [from, to]} (logins are sorted by invocation). */
    boolean overlap(long from, long to) {
      int started = Epochs.countAtMost(invoked, to);
      return started > 0 && latestCompletion[started - 1] >= from;
    }
  }
}
