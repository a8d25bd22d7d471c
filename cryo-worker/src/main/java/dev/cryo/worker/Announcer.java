package dev.cryo.worker;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Numbers announcements in the order they are published and hands them to the listener in that
 * order, what was published together as one burst, one burst at a time, and keeps the watermark: the sequence of the last announcement delivered.
 *
 * <p>Publishing happens under the lock of the user concerned, so that one user's announcements
 * follow the order of his changes; delivery happens after, with no lock of the caller held, on
 * whichever publishing thread finds the queue idle. A reply must never overtake the announcements
 * its call caused: before replying, the worker calls {@link #flush()}, which waits until everything
 * published so far was delivered (delivering itself when nobody is), or registers a completion with
 * {@link #afterDelivered} when it must not block. An announcement counts as delivered once the
 * listener returned or threw.
 *
 * <p>Thread-safe. The announcer's monitor is the innermost lock of the worker: it is held only for
 * bookkeeping, never while the listener or a completion runs.
 */
final class Announcer {

  private static final System.Logger LOG = System.getLogger(Announcer.class.getName());

  /** A completion waiting for a sequence to be delivered. */
  private record Waiter(long sequence, Runnable action) {}

  /** The most announcements handed to the listener in one burst. */
  static final int MAX_BURST = 64;

  private final AnnouncementListener listener;
  private final ArrayDeque<Announcement> queue = new ArrayDeque<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private long published;
  private long delivered;
  private boolean delivering;

  /** The generation each user is held at, read as he is announced (under his tenant lock). */
  private final java.util.function.ToLongFunction<String> generations;

  Announcer(AnnouncementListener listener, java.util.function.ToLongFunction<String> generations) {
    this.listener = listener;
    this.generations = generations;
  }

  /** Numbers and queues one announcement; call {@link #deliver()} once the caller's locks are released. */
  synchronized void publish(AnnouncementKind kind, String user, List<String> keys, String detail) {
    queue.add(new Announcement(++published, kind, user, keys, detail,
        generations.applyAsLong(user), CAUSE.get()));
  }

  /** The request the current thread serves, while it serves it ({@link #causedBy}). */
  private static final ThreadLocal<String> CAUSE = new ThreadLocal<>();

  /**
   * Runs {@code action} with {@code requestId} named as the cause of every announcement the
   * current thread publishes meanwhile (on any worker): a call's admission, its pages, its login,
   * its drops. One made on another thread — by work a handler started — names none. Puts back what
   * was named before.
   *
   * @param requestId the request's id ({@code Cryo-Request-Id}), or null for none
   */
  static <T> T causedBy(String requestId, java.util.function.Supplier<T> action) {
    String before = CAUSE.get();
    CAUSE.set(requestId);
    try {
      return action.get();
    } finally {
      if (before == null) {
        CAUSE.remove();
      } else {
        CAUSE.set(before);
      }
    }
  }

  /** Publishes one announcement per key-less kind naming one key. */
  void publish(AnnouncementKind kind, String user, String key) {
    publish(kind, user, List.of(key), null);
  }

  /** The sequence of the last announcement delivered to the listener (0 before the first). */
  synchronized long watermark() {
    return delivered;
  }

  /**
   * Delivers what is queued, unless another thread is delivering (it will deliver it too): what
   * is queued at once goes to the listener as one burst ({@link AnnouncementListener#announceAll}),
   * at most {@value #MAX_BURST} at a time, in sequence order.
   */
  void deliver() {
    while (true) {
      List<Announcement> burst;
      synchronized (this) {
        if (delivering || queue.isEmpty()) {
          return;
        }
        delivering = true;
        burst = new ArrayList<>(Math.min(queue.size(), MAX_BURST));
        while (!queue.isEmpty() && burst.size() < MAX_BURST) {
          burst.add(queue.poll());
        }
      }
      Announcement last = burst.get(burst.size() - 1);
      try {
        if (burst.size() == 1) {
          listener.announce(last);
        } else {
          listener.announceAll(List.copyOf(burst));
        }
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "the announcement listener refused " + (burst.size() == 1
            ? "announcement " + last.sequence() + " (" + last.kind().code() + " " + last.keys() + ")"
            : "some of announcements " + burst.get(0).sequence() + ".." + last.sequence())
            + "; they count as delivered and the next ones are still delivered", e);
      } finally {
        List<Runnable> due;
        synchronized (this) {
          delivering = false;
          delivered = last.sequence();
          due = dueWaiters();
          notifyAll();
        }
        due.forEach(Announcer::runQuietly);
      }
    }
  }

  /**
   * Waits until every announcement published before this call has been delivered, delivering
   * them itself when no other thread is. Must not be called holding a user's lock, nor from the
   * listener. Uninterruptible (a reply must not overtake its announcements): an interrupt is kept
   * for the caller.
   *
   * @return the watermark reached, at least the sequence last published before the call
   */
  long flush() {
    long target;
    synchronized (this) {
      target = published;
    }
    boolean interrupted = false;
    try {
      while (true) {
        deliver();
        synchronized (this) {
          while (delivered < target && delivering) {
            try {
              wait();
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
          if (delivered >= target) {
            return delivered;
          }
        }
        // nobody is delivering and what we wait for is still queued: deliver it ourselves
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Runs {@code action} once every announcement published before this call has been delivered:
   * at once on this thread when it already was, else on the thread that delivers the last of
   * them. Never blocks.
   */
  void afterDelivered(Runnable action) {
    synchronized (this) {
      if (delivered < published) {
        waiters.add(new Waiter(published, action));
        return;
      }
    }
    runQuietly(action);
  }

  private List<Runnable> dueWaiters() {
    if (waiters.isEmpty()) {
      return List.of();
    }
    List<Runnable> due = new ArrayList<>();
    waiters.removeIf(waiter -> {
      if (waiter.sequence() <= delivered) {
        due.add(waiter.action());
        return true;
      }
      return false;
    });
    return due;
  }

  private static void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "a completion waiting for announcements failed", e);
    }
  }
}
