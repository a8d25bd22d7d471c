package dev.cryo.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;

/** A schedule whose time moves only when a test says; due tasks run on the test's thread. */
final class ManualSchedule implements Schedule {

  private record Task(Instant due, long order, Runnable action) {}

  private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> {
    int byDue = a.due().compareTo(b.due());
    return byDue != 0 ? byDue : Long.compare(a.order(), b.order());
  });
  private volatile Instant now = Instant.parse("2030-01-01T00:00:00Z");
  private long order;

  private final Clock clock = new Clock() {
    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    Task entry = new Task(now.plus(delay), order++, task);
    tasks.add(entry);
    return () -> {
      synchronized (this) {
        tasks.remove(entry);
      }
    };
  }

  /** Runs every task due now (and those they schedule due now); returns how many ran. */
  int runDue() {
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due().isAfter(now)) {
          return ran;
        }
        tasks.poll();
      }
      next.action().run();
      ran++;
    }
  }

  /**
   * One turn: runs the tasks due now that were scheduled before this call, and none that they
   * schedule (those wait for the next turn), as an executor's queue would interleave them with
   * other work.
   */
  int turn() {
    long last;
    synchronized (this) {
      last = order;
    }
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due().isAfter(now) || next.order() >= last) {
          return ran;
        }
        tasks.poll();
      }
      next.action().run();
      ran++;
    }
  }

  /** Moves time forward by {@code step} without running anything. */
  void skip(Duration step) {
    now = now.plus(step);
  }

  /** Moves time forward by {@code step} and runs what fell due. */
  void advance(Duration step) {
    now = now.plus(step);
    runDue();
  }

  /** Whether a task falls due within {@code window} from now. */
  synchronized boolean dueWithin(Duration window) {
    Task next = tasks.peek();
    return next != null && !next.due().isAfter(now.plus(window));
  }

  /** How many tasks wait to run. */
  synchronized int pending() {
    return tasks.size();
  }

  Instant now() {
    return now;
  }
}
