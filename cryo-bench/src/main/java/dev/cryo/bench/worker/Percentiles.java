package dev.cryo.bench.worker;

import java.util.Arrays;

/** Median and 99th percentile of a set of durations, in microseconds. */
record Percentiles(double medianMicros, double p99Micros, int count) {

  static Percentiles of(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new Percentiles(at(sorted, 0.50) / 1e3, at(sorted, 0.99) / 1e3, sorted.length);
  }

  private static long at(long[] sorted, double quantile) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
  }

  @Override
  public String toString() {
    return String.format("median %,.0f us, p99 %,.0f us (%d samples)", medianMicros, p99Micros,
        count);
  }
}
