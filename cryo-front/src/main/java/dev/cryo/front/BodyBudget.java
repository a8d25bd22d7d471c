package dev.cryo.front;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request-body bytes the front holds at once, across all requests: a body is counted from its
 * first byte read until its request is answered (the commander and the worker's wire hold it till
 * then), and a request whose body would take the total past the budget is refused with 503 and
 * {@code Retry-After} instead of being read — so concurrent large bodies cannot fill the
 * commander's heap. A body of declared length is counted whole before a byte of it is read; a
 * chunked one as it arrives. Thread-safe and lock-free.
 */
final class BodyBudget {

  private final long limit;
  private final AtomicLong held = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  /** A budget of {@code limit} bytes (at least the largest body, so one body always fits). */
  BodyBudget(long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("the body budget is at least 0 bytes, not " + limit);
    }
    this.limit = limit;
  }

  /** The budget in bytes. */
  long limit() {
    return limit;
  }

  /** The body bytes held now. */
  long held() {
    return held.get();
  }

  /** The requests refused for the budget since the front started. */
  long refused() {
    return refused.get();
  }

  /**
   * Takes {@code bytes} from the budget if they fit, and says whether they did; nothing is taken
   * when they do not. What is taken is given back with {@link #release}.
   */
  boolean tryTake(long bytes) {
    if (bytes <= 0) {
      return true;
    }
    long now;
    do {
      now = held.get();
      if (now + bytes > limit) {
        return false;
      }
    } while (!held.compareAndSet(now, now + bytes));
    return true;
  }

  /** Counts one request refused for the budget. */
  void refusedOne() {
    refused.incrementAndGet();
  }

  /** Gives back {@code bytes} taken before. */
  void release(long bytes) {
    if (bytes > 0) {
      held.addAndGet(-bytes);
    }
  }
}
