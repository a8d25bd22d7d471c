package dev.cryo.chaos.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rules of one counter (a user's {@code counter} or a page's {@code pageCounter}), epoch by
 * epoch. An observation is an {@code ok} completion carrying the counter: an increment's value
 * after it, a read's, a login's. Within an epoch a correct counter only grows, by one per
 * increment, so for every observation X (sorted by invocation, swept against the observations
 * sorted by completion, never pair by pair):
 * <ul>
 *   <li>an increment X returns more than every value observed before X was invoked, and more than
 *       the number of acked increments completed before it (the counter starts at 0 or more):
 *       otherwise {@link AnomalyKind#TWO_LIVE_COPIES};
 *   <li>a read or login X returns at least every value observed before X was invoked, and at least
 *       that number of increments: otherwise {@link AnomalyKind#TIME_TRAVEL}, or
 *       {@link AnomalyKind#LOST_WRITE} when X is the epoch's last observation;
 *   <li>no two acked increments return the same value ({@link AnomalyKind#TWO_LIVE_COPIES});
 *   <li>from the epoch's first observation O to its last F, the counter moves by at least the
 *       number of acked increments invoked after O completed and completed before F was invoked
 *       ({@link AnomalyKind#LOST_WRITE}; an acked increment whose reply carried no value counts
 *       here too).
 * </ul>
 */
final class CounterCheck {

  /**
   * One {@code ok} completion of the register.
   *
   * @param operation the operation
   * @param value the counter it returned, or null (an acked increment whose reply had none)
   * @param increment whether it is an increment
   */
  record Reading(Operation operation, Long value, boolean increment) {}

  private static final Comparator<Reading> BY_INVOCATION =
      Comparator.comparingLong((Reading r) -> r.operation().invokeT())
          .thenComparingLong(r -> r.operation().id());
  private static final Comparator<Reading> BY_COMPLETION =
      Comparator.comparingLong((Reading r) -> r.operation().completeT())
          .thenComparingLong(r -> r.operation().invokeT())
          .thenComparingLong(r -> r.operation().id());

  private final String register;
  private final String counter;
  private final Findings findings;

  private CounterCheck(String register, String counter, Findings findings) {
    this.register = register;
    this.counter = counter;
    this.findings = findings;
  }

  /**
   * Checks the readings of one register.
   *
   * @param register the register's name in reports ({@code anna}, {@code page:p3})
   * @param counter the counter's name in explanations ({@code counter}, {@code pageCounter})
   * @param readings its {@code ok} completions, any order
   * @param ends the ends of its epochs, sorted wall times
   */
  static void check(String register, String counter, List<Reading> readings, long[] ends,
      Findings findings) {
    CounterCheck check = new CounterCheck(register, counter, findings);
    for (List<Reading> epoch : Epochs.split(readings, ends, Reading::operation)) {
      if (!epoch.isEmpty()) {
        check.checkEpoch(epoch);
      }
    }
  }

  private void checkEpoch(List<Reading> epoch) {
    List<Reading> byInvocation = new ArrayList<>(epoch.size());
    List<Reading> increments = new ArrayList<>();
    for (Reading reading : epoch) {
      if (reading.value() != null) {
        byInvocation.add(reading);
      }
      if (reading.increment()) {
        increments.add(reading);
      }
    }
    if (byInvocation.isEmpty()) {
      return;
    }
    List<Reading> byCompletion = new ArrayList<>(byInvocation);
    byInvocation.sort(BY_INVOCATION);
    byCompletion.sort(BY_COMPLETION);
    increments.sort(BY_COMPLETION);
    Reading last = byCompletion.get(byCompletion.size() - 1);
    boolean lastReported = sweep(byInvocation, byCompletion, increments, last);
    duplicates(increments);
    if (!lastReported) {
      countFromFirstToLast(byCompletion.get(0), last, increments);
    }
  }

  /** The monotonic rules; returns whether the last observation was reported. */
  private boolean sweep(List<Reading> byInvocation, List<Reading> byCompletion,
      List<Reading> increments, Reading last) {
    int completed = 0;
    int incremented = 0;
    long count = 0;
    Reading highest = null;
    boolean lastReported = false;
    for (Reading x : byInvocation) {
      long invoked = x.operation().invokeT();
      while (completed < byCompletion.size()
          && byCompletion.get(completed).operation().completeT() < invoked) {
        Reading seen = byCompletion.get(completed++);
        if (highest == null || seen.value() > highest.value()) {
          highest = seen;
        }
      }
      while (incremented < increments.size()
          && increments.get(incremented).operation().completeT() < invoked) {
        incremented++;
        count++;
      }
      long value = x.value();
      if (x.increment()) {
        if (highest != null && value <= highest.value()) {
          report(AnomalyKind.TWO_LIVE_COPIES, x.operation().describe() + " returned " + counter
              + " " + value + ", but " + highest.operation().describe() + " had returned "
              + highest.value() + " before it was invoked: an increment returns more than any"
              + " value seen before it", highest.operation(), x.operation());
          lastReported |= x == last;
        } else if (value <= count) {
          report(AnomalyKind.TWO_LIVE_COPIES, x.operation().describe() + " returned " + counter
              + " " + value + ", but " + count + " acked increments completed before it was"
              + " invoked", x.operation());
          lastReported |= x == last;
        }
      } else {
        AnomalyKind kind = x == last ? AnomalyKind.LOST_WRITE : AnomalyKind.TIME_TRAVEL;
        String which = x == last ? "the epoch's last observation, " : "";
        String after = x == last ? "" : "; a later observation followed";
        if (highest != null && value < highest.value()) {
          report(kind, which + x.operation().describe() + " returned " + counter + " " + value
              + " after " + highest.operation().describe() + " had returned " + highest.value()
              + " before it was invoked" + after, highest.operation(), x.operation());
          lastReported |= x == last;
        } else if (value < count) {
          report(kind, which + x.operation().describe() + " returned " + counter + " " + value
              + " after " + count + " acked increments had completed before it was invoked"
              + after, x.operation());
          lastReported |= x == last;
        }
      }
    }
    return lastReported;
  }

  /** Two acked increments of one epoch returning one value. */
  private void duplicates(List<Reading> increments) {
    List<Reading> valued = new ArrayList<>(increments.size());
    for (Reading reading : increments) {
      if (reading.value() != null) {
        valued.add(reading);
      }
    }
    valued.sort(Comparator.comparingLong(Reading::value).thenComparing(BY_COMPLETION));
    int start = 0;
    while (start < valued.size()) {
      int end = start + 1;
      while (end < valued.size() && valued.get(end).value().equals(valued.get(start).value())) {
        end++;
      }
      if (end - start > 1) {
        List<Reading> same = valued.subList(start, Math.min(end, start + 10));
        Operation[] operations = same.stream().map(Reading::operation).toArray(Operation[]::new);
        StringBuilder names = new StringBuilder();
        for (Reading reading : same) {
          names.append(names.isEmpty() ? "" : ", ").append(reading.operation().describe());
        }
        report(AnomalyKind.TWO_LIVE_COPIES, (end - start) + " acked increments returned " + counter
            + " " + valued.get(start).value() + " in one epoch: " + names, operations);
      }
      start = end;
    }
  }

  /** The count of increments between the epoch's first and last observations. */
  private void countFromFirstToLast(Reading first, Reading last, List<Reading> increments) {
    long firstDone = first.operation().completeT();
    long lastInvoked = last.operation().invokeT();
    if (first == last || firstDone >= lastInvoked) {
      return;
    }
    long between = 0;
    for (Reading increment : increments) {
      Operation operation = increment.operation();
      if (operation.invokeT() > firstDone && operation.completeT() < lastInvoked) {
        between++;
      }
    }
    long needed = between + (last.increment() ? 1 : 0);
    long moved = last.value() - first.value();
    if (moved < needed) {
      report(AnomalyKind.LOST_WRITE, "from the epoch's first observation, "
          + first.operation().describe() + " (" + counter + " " + first.value()
          + "), to its last, " + last.operation().describe() + " (" + last.value() + "), "
          + between + " acked increments were invoked after the first and completed before the"
          + " last, but the " + counter + " moved by " + moved, first.operation(),
          last.operation());
    }
  }

  private void report(AnomalyKind kind, String explanation, Operation... operations) {
    findings.add(kind, register, explanation, operations);
  }
}
