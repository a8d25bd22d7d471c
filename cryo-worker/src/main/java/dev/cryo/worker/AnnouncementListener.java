package dev.cryo.worker;

import java.util.List;

/**
 * Receives a worker's announcements. Calls are made one at a time, never concurrently, in the
 * order of {@link Announcement#sequence()}, on whichever worker thread published one; a listener
 * must return quickly and must not call back into the worker's lifecycle. A call's reply waits
 * until the announcements it caused were delivered, so a slow listener slows the replies. An
 * exception it throws is logged, the announcement counts as delivered and the next one is still
 * delivered.
 */
@FunctionalInterface
public interface AnnouncementListener {

  /** Takes one announcement. */
  void announce(Announcement announcement);

  /**
   * Takes a burst: announcements published together (one change of one user), in sequence order,
   * at once, so that a listener that writes them somewhere can write them in one go. Made under the
   * same rules as {@link #announce}; every announcement of the burst counts as delivered when it
   * returns or throws. The default hands each to {@link #announce} in order, each one even when
   * one before it threw, and throws the first exception (the others suppressed in it) at the end.
   */
  default void announceAll(List<Announcement> burst) {
    RuntimeException failed = null;
    for (Announcement announcement : burst) {
      try {
        announce(announcement);
      } catch (RuntimeException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
