package dev.cryo.worker;

/**
 * Receives a worker's announcements. Calls are made one at a time, never concurrently, in the
 * order of {@link Announcement#sequence()} (a {@link Batches} listener may get several in one
 * call), on whichever worker thread published one; a listener
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
   * A listener that also takes a run of announcements in one call, as one write would carry them:
   * the announcer hands it what is queued (in sequence order, at most {@link Announcer#MAX_BATCH})
   * instead of one at a time. An exception from {@link #announceAll} must mean that none of the run
   * was taken, or that the rest cannot be taken any more (its wire closed): the announcer then hands
   * them over one at a time by {@link #announce}, so that a refused one is logged and skipped alone.
   */
  interface Batches extends AnnouncementListener {

    /** Takes {@code run}, two or more announcements in sequence order, in one go. */
    void announceAll(java.util.List<Announcement> run);
  }
}
