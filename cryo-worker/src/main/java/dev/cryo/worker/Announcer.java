package dev.cryo.worker;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Numbers announcements in the order they are published and hands them to the listener one at a
 * time, in that order. Publishing happens under the lock of the user concerned, so that one user's
 * announcements follow the order of his changes; delivery happens after, with no lock of the caller
 * held, on whichever publishing thread finds the queue idle.
 */
final class Announcer {

  private static final System.Logger LOG = System.getLogger(Announcer.class.getName());

  private final AnnouncementListener listener;
  private final ArrayDeque<Announcement> queue = new ArrayDeque<>();
  private long sequence;
  private boolean delivering;

  Announcer(AnnouncementListener listener) {
    this.listener = listener;
  }

  /** Numbers and queues one announcement; call {@link #deliver()} once the caller's locks are released. */
  synchronized void publish(Announcement.Kind kind, String user, List<String> keys, String detail) {
    queue.add(new Announcement(++sequence, kind, user, keys, detail));
  }

  /** Publishes one announcement per key-less kind naming one key. */
  void publish(Announcement.Kind kind, String user, String key) {
    publish(kind, user, List.of(key), null);
  }

  /** Delivers what is queued, unless another thread is delivering (it will deliver it too). */
  void deliver() {
    while (true) {
      Announcement next;
      synchronized (this) {
        if (delivering || queue.isEmpty()) {
          return;
        }
        delivering = true;
        next = queue.poll();
      }
      try {
        listener.announce(next);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "the announcement listener refused announcement " + next.sequence()
            + " (" + next.kind().code() + " " + next.keys() + "); it is skipped and the next ones"
            + " are still delivered", e);
      } finally {
        synchronized (this) {
          delivering = false;
        }
      }
    }
  }
}
