package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Unexplained failures: every {@code fail} or {@code info} completion must be explained, else it
 * is an {@link AnomalyKind#UNEXPLAINED_FAILURE}. Explained are: an operation whose span
 * {@code [invoke.t, completion.t]} meets a fault window {@code [fault_start.t, fault_end.t +
 * grace]} (an open fault lasts to the end); a {@code 409 move_refused} of a move, anywhere; a
 * {@code 409 cookie_rotated}, anywhere (a request sent with the cookie a login of the same user
 * retired meanwhile: refused before anything ran, no cookie set); a {@code 404 unknown_page} the
 * page rules explained or accounted for. Nothing else is, anywhere:
 * a {@code 503} outside the windows is an anomaly.
 */
final class FailureCheck {

  private FailureCheck() {}

  /**
   * Checks every failed or unknown operation.
   *
   * @param explained the ids of the refusals the page rules explained or accounted for
   */
  static void check(Operations operations, Duration grace, Set<Long> explained,
      Findings findings) {
    long[][] windows = windows(operations.faults, grace.toNanos());
    long[] starts = windows[0];
    long[] ends = windows[1];
    for (Operation operation : operations.all) {
      Entry completion = operation.completion();
      if (completion == null || Entry.OK.equals(completion.type())) {
        continue;
      }
      if (explained.contains(operation.id()) || isMoveRefused(operation)
          || isCookieRotated(operation)) {
        continue;
      }
      int started = Epochs.countAtMost(starts, operation.completeT());
      if (started > 0 && ends[started - 1] >= operation.invokeT()) {
        continue;
      }
      findings.add(AnomalyKind.UNEXPLAINED_FAILURE, register(operation), operation.describe()
          + " ended " + completion.type() + " (status " + completion.status() + ", "
          + completion.error() + ") outside every fault window (grace "
          + grace.toMillis() / 1000.0 + " s) and is no documented refusal", operation);
    }
  }

  private static boolean isMoveRefused(Operation operation) {
    Entry completion = operation.completion();
    return operation.is(Function.MOVE) && Entry.FAIL.equals(completion.type())
        && Integer.valueOf(409).equals(completion.status())
        && "move_refused".equals(completion.error());
  }

  private static boolean isCookieRotated(Operation operation) {
    Entry completion = operation.completion();
    return Entry.FAIL.equals(completion.type())
        && Integer.valueOf(409).equals(completion.status())
        && completion.error() != null // the socket's JSON code, or HTTP's Cryo-Reason
        && (completion.error().equals("cookie_rotated")
            || completion.error().equals("http_409_cookie_rotated"));
  }

  private static String register(Operation operation) {
    if (operation.invoke().user() != null) {
      return operation.invoke().user();
    }
    return operation.page() != null ? "page:" + operation.page() : "vuser:" + operation.vuser();
  }

  /** The windows merged into disjoint spans sorted by start: {starts, ends}. */
  static long[][] windows(List<FaultWindow> faults, long graceNanos) {
    List<long[]> merged = new ArrayList<>();
    for (FaultWindow fault : faults) { // sorted by start
      long end = fault.open() ? Long.MAX_VALUE : saturatedAdd(fault.endT(), graceNanos);
      if (!merged.isEmpty() && merged.get(merged.size() - 1)[1] >= fault.startT()) {
        long[] last = merged.get(merged.size() - 1);
        last[1] = Math.max(last[1], end);
      } else {
        merged.add(new long[] {fault.startT(), end});
      }
    }
    long[] starts = new long[merged.size()];
    long[] ends = new long[merged.size()];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = merged.get(i)[0];
      ends[i] = merged.get(i)[1];
    }
    return new long[][] {starts, ends};
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
