package dev.cryo.commander;

/**
 * Where the commander hands the application's pushes: the front, which holds the browsers'
 * sockets. Called on the threads that read the workers' wires (several at once, one per wire):
 * implementations must be thread-safe and must not block, since that wire reads nothing meanwhile
 * (a slow socket's queue is the front's business).
 */
@FunctionalInterface
public interface PushSink {

  /** The sink of a run without a front: nothing is written anywhere. */
  PushSink NONE = (connection, page, data) -> false;

  /**
   * Writes {@code data} to the sockets bound to {@code page}.
   *
   * @param connection the page's connection, as the commander's maps say
   * @param page the page
   * @param data the UTF-8 bytes of one JSON value
   * @return whether it was written to at least one socket
   */
  boolean deliver(String connection, String page, byte[] data);

  /**
   * Tells the sockets bound to {@code page} that it was closed for good (the application's
   * {@code closePage}, a drop order): nothing of it is left, so they must not open it again. Called
   * once the page is gone from the maps, on the thread folding the worker's announcement, under
   * the maps' lock: it must not block and must not call the commander. The default does nothing.
   *
   * @param connection the page's connection, as the maps said
   * @param page the page
   */
  default void pageClosed(String connection, String page) {}

  /**
   * Whether any page may have a socket bound now. False only when none has: a worker is then told
   * that the pushes of the call it is sent reach no socket, and answers those it can count itself
   * without relaying them. A socket bound while a call runs may miss that call's pushes, as a push
   * that comes just before a socket is bound always does. The default is true: every push is
   * relayed.
   */
  default boolean anyBound() {
    return true;
  }
}
