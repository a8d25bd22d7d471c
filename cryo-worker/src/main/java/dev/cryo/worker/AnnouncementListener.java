package dev.cryo.worker;

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
}
