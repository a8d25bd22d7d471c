package dev.cryo.lock;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Stops a publication at one of its steps, for the tests of other packages (and their child JVMs):
 * {@link #once} arms a step, and the next publication of this JVM that reaches it runs the given
 * action on the publishing thread (which may never return: a child parked there waits for its
 * {@code kill -9}). Thread-safe; each arming fires once.
 */
public final class PublicationSeam {

  /** The steps of {@link Publication#tryPublish} a test may stop at. */
  public enum Step {
    /** The temporary is written whole; the link is not made. */
    BEFORE_LINK,
    /** The link is made (the record is published); the temporary is not yet removed. */
    AFTER_LINK
  }

  private static final AtomicReference<Runnable> BEFORE = new AtomicReference<>();
  private static final AtomicReference<Runnable> AFTER = new AtomicReference<>();

  static {
    Publication.beforeLink = (target, temporary) -> fire(BEFORE);
    Publication.afterLink = (target, temporary) -> fire(AFTER);
  }

  private PublicationSeam() {}

  /** Runs {@code action} at the next publication of this JVM that reaches {@code step}. */
  public static void once(Step step, Runnable action) {
    (step == Step.BEFORE_LINK ? BEFORE : AFTER).set(action);
  }

  private static void fire(AtomicReference<Runnable> armed) {
    Runnable action = armed.getAndSet(null);
    if (action != null) {
      action.run();
    }
  }
}
