package dev.cryo.chaos.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Epochs: the stretches of a register's life between two documented ends (sorted wall times, ms).
 * Two operations A (earlier) and R (later) are in one epoch iff no end falls in
 * {@code [invoke(A).wall - SLACK, completion(R).wall + SLACK]}; so an operation whose own span
 * (widened by the slack) holds an end is in none, and every other one is in the epoch numbered by
 * how many ends came before it.
 */
final class Epochs {

  /** The slack, either side, between the history's wall clock and the event log's. */
  static final long SLACK_MILLIS = 5;
  /** The epoch of an operation whose span holds an end: compared with nothing. */
  static final int NONE = -1;

  private static final long[] NO_ENDS = new long[0];

  private Epochs() {}

  /** The empty array of ends. */
  static long[] none() {
    return NO_ENDS;
  }

  /** The epoch of an operation spanning {@code [invokeWall, completeWall]}, or {@link #NONE}. */
  static int of(long[] ends, long invokeWall, long completeWall) {
    if (ends.length == 0) {
      return 0;
    }
    int before = countBelow(ends, invokeWall - SLACK_MILLIS);
    long last = completeWall == Long.MAX_VALUE ? Long.MAX_VALUE : completeWall + SLACK_MILLIS;
    int upTo = countAtMost(ends, last);
    return before == upTo ? before : NONE;
  }

  /**
   * Splits items by epoch: element {@code i} of the result holds the items of epoch {@code i}
   * (empty when none), in their order; items in no epoch are left out.
   */
  static <T> List<List<T>> split(List<T> items, long[] ends,
      java.util.function.Function<T, Operation> operationOf) {
    List<List<T>> epochs = new ArrayList<>(ends.length + 1);
    if (ends.length == 0) {
      epochs.add(items);
      return epochs;
    }
    for (int i = 0; i <= ends.length; i++) {
      epochs.add(new ArrayList<>());
    }
    for (T item : items) {
      Operation operation = operationOf.apply(item);
      int epoch = of(ends, operation.invokeWall(), operation.completeWall());
      if (epoch != NONE) {
        epochs.get(epoch).add(item);
      }
    }
    return epochs;
  }

  /** Whether some end lies in {@code [from, to]}. */
  static boolean anyWithin(long[] ends, long from, long to) {
    if (ends.length == 0 || from > to) {
      return false;
    }
    int index = countBelow(ends, from);
    return index < ends.length && ends[index] <= to;
  }

  /** The sorted union of sorted arrays. */
  static long[] merge(Collection<long[]> arrays) {
    int size = 0;
    int nonEmpty = 0;
    long[] some = NO_ENDS;
    for (long[] array : arrays) {
      size += array.length;
      if (array.length > 0) {
        nonEmpty++;
        some = array;
      }
    }
    if (nonEmpty <= 1) {
      return some;
    }
    long[] all = new long[size];
    int at = 0;
    for (long[] array : arrays) {
      System.arraycopy(array, 0, all, at, array.length);
      at += array.length;
    }
    Arrays.sort(all);
    return all;
  }

  /** How many elements of the sorted array are below {@code value}. */
  static int countBelow(long[] sorted, long value) {
    int low = 0;
    int high = sorted.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (sorted[middle] < value) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** How many elements of the sorted array are at most {@code value}. */
  static int countAtMost(long[] sorted, long value) {
    return value == Long.MAX_VALUE ? sorted.length : countBelow(sorted, value + 1);
  }
}
