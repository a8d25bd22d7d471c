package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Vanished users: a virtual user (one cookie) whose replies switch from user U to another name
 * with no login of his to either name around the switch — the server forgot his connection and
 * made it a new guest. When U (or the other) had acked increments by then and no loss is documented
 * around the switch, it is a {@link AnomalyKind#LOST_WRITE}.
 *
 * <p>Replies are taken in completion order, leaving out those whose connection cookie the client
 * dropped ({@code cookie: dropped}: a connection it left behind, not his). Two consecutive ones, A
 * naming U and B naming V, were served on either side of the change of identity: U then V when A
 * completed before B was invoked, else in either order (a reply served first may arrive last).
 * The switch is excused by:
 * <ul>
 *   <li>a login of the virtual user to the identity served later (V, or U when the order is open)
 *       invoked before B completed, whatever its outcome and however long before: a login changes
 *       the identity to its target, and the run may show the change only after the login's own
 *       reply (a {@code 303} login's connection travels by the freezer) or after the client gave
 *       up on it. A forgotten connection becomes a guest, never a login's target, so this excuses
 *       no vanished identity;
 *   <li>a login of his whose reply never came (its outcome unknown), ending after A was invoked
 *       and invoked before B completed: the login rotated the connection's cookie, its reply held
 *       the new one, and the cookie the client kept was retired (refused for a grace, then
 *       answered as a new visitor's);
 *   <li>a documented loss, in {@code [min(invoke(A), invoke(B)), completion(B)]} widened by the
 *       slack, of any identity the virtual user may have had ({@link Operations#identitiesOf}:
 *       between A and B he may have been the target of a login whose reply never came, and been
 *       lost as that one).
 * </ul>
 * A switch between two users with no acked increment by then loses nothing and is not reported.
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
      Map<String, Long> firstLoginTo = firstLoginTo(
          operations.loginsByVuser.getOrDefault(entry.getKey(), List.of()));
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
        boolean ordered = before.completeT() < after.invokeT(); // else either was served first
        if (loggedInBy(firstLoginTo, other, after.completeT())
            || (!ordered && loggedInBy(firstLoginTo, user, after.completeT()))) {
          continue; // a login's change of identity (it may show after its own reply)
        }
        if (unansweredLogin(operations.loginsByVuser.getOrDefault(entry.getKey(), List.of()),
            before, after)) {
          continue; // its reply, never read, held the cookie: the one he kept was retired
        }
        long fromWall = Math.min(before.invokeWall(), after.invokeWall()) - Epochs.SLACK_MILLIS;
        long toWall = after.completeWall() + Epochs.SLACK_MILLIS;
        if (Epochs.anyWithin(identityLosses, fromWall, toWall)) {
          continue;
        }
        findings.add(AnomalyKind.LOST_WRITE, user, "vuser " + entry.getKey() + " was user "
            + user + " (" + before.describe() + ") and then " + other + " ("
            + after.describe() + ") with no login of his to either in flight and no loss of his"
            + " documented: his connection was forgotten, with acked increments", before, after);
      }
    }
  }

  /**
   * Whether a login of his ended without a reply (its outcome unknown) after {@code before} was
   * invoked and before {@code after} completed: a login rotates the connection's cookie, and its
   * reply is what gives the new one; the client kept the retired one, refused for a grace, then
   * answered as a new visitor's (docs/security.md).
   */
  private static boolean unansweredLogin(List<Operation> logins, Operation before,
      Operation after) {
    for (Operation login : logins) {
      Entry completion = login.completion();
      if (Operations.unanswered(login) && login.invokeT() <= after.completeT()
          && (completion == null || login.completeT() >= before.invokeT())) {
        return true;
      }
    }
    return false;
  }

  private static boolean ackedBefore(Map<String, Long> firstAckedIncrement, String user,
      Operation after) {
    Long first = firstAckedIncrement.get(user);
    return first != null && first < after.completeT();
  }

  /**
   * Per target, when the virtual user's first login to it was invoked ({@code t}), whatever its
   * outcome.
   */
  private static Map<String, Long> firstLoginTo(List<Operation> logins) {
    Map<String, Long> first = new HashMap<>();
    for (Operation login : logins) {
      if (login.invoke().arg() != null) {
        first.merge(login.invoke().arg(), login.invokeT(), Math::min);
      }
    }
    return first;
  }

  private static boolean loggedInBy(Map<String, Long> firstLoginTo, String user, long t) {
    Long invoked = firstLoginTo.get(user);
    return invoked != null && invoked <= t;
  }
}
