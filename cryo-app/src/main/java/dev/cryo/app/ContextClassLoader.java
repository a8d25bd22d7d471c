package dev.cryo.app;

/**
 * The application's class loader as the current thread's context class loader, for as long as
 * application code runs (a route's handler, a hook, an upgrade, the declaration of the routes):
 * libraries in the application's jar that look things up through the context class loader
 * ({@link java.util.ServiceLoader}: JDBC drivers, JSON modules, …) find what the jar holds. The
 * previous loader is put back on {@link #close()}.
 *
 * <p>Not thread-safe: made and closed on one thread, in a try-with-resources.
 */
final class ContextClassLoader implements AutoCloseable {

  private final Thread thread;
  private final ClassLoader previous;

  private ContextClassLoader(Thread thread, ClassLoader previous) {
    this.thread = thread;
    this.previous = previous;
  }

  /** Sets {@code application}'s class loader on the current thread until {@link #close()}. */
  static ContextClassLoader of(CryoApplication application) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    ClassLoader loader = application.getClass().getClassLoader();
    if (loader != null) {
      thread.setContextClassLoader(loader);
    }
    return new ContextClassLoader(thread, previous);
  }

  /** Puts back the loader the thread had. */
  @Override
  public void close() {
    thread.setContextClassLoader(previous);
  }
}
