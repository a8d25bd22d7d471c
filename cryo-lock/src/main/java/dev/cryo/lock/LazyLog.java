package dev.cryo.lock;

/**
 * A {@link System.Logger} looked up at its first message, not when its class is initialised: the
 * lookup sets up the platform's logging back end (dozens of classes, its configuration read),
 * which a short-lived process that takes a lock and never logs should not pay for. Thread-safe.
 */
final class LazyLog {

  private final String name;
  private volatile System.Logger logger;

  /** The logger named after {@code owner}, looked up when it is first used. */
  LazyLog(Class<?> owner) {
    this.name = owner.getName();
  }

  /**
   * The logger. Callers log through it themselves ({@code LOG.get().log(...)}), so that a back end
   * that names the calling class and method names theirs, not this one.
   */
  System.Logger get() {
    System.Logger known = logger;
    if (known == null) {
      known = System.getLogger(name);
      logger = known;
    }
    return known;
  }
}
