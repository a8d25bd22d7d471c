package dev.cryo.admin;

import dev.cryo.commander.Status;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The users of each worker over time, for the status page's chart: one sample per
 * {@link #sample}, the latest {@code capacity} kept. Thread-safe.
 */
public final class UsersHistory {

  /**
   * One sample.
   *
   * @param at when the status was taken
   * @param users each worker's users then, by name, in the status's order
   */
  public record Sample(Instant at, Map<String, Integer> users) {
    /** Copies the map. */
    public Sample {
      users = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(users));
    }
  }

  private final int capacity;
  private final ArrayDeque<Sample> samples; // guarded by this

  /** A history keeping the latest {@code capacity} samples. */
  public UsersHistory(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a history keeps at least 1 sample, not " + capacity);
    }
    this.capacity = capacity;
    this.samples = new ArrayDeque<>(capacity);
  }

  /** Adds the users per worker of {@code status}. */
  public void sample(Status status) {
    Map<String, Integer> users = new LinkedHashMap<>();
    for (Status.WorkerStatus worker : status.workers()) {
      users.put(worker.name(), worker.users());
    }
    Sample sample = new Sample(status.takenAt(), users);
    synchronized (this) {
      if (samples.size() == capacity) {
        samples.removeFirst();
      }
      samples.addLast(sample);
    }
  }

  /** The samples kept, oldest first. */
  public synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }
}
