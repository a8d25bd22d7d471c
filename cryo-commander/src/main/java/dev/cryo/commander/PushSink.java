package dev.cryo.commander;

/**
 * Where the commander hands the application's pushes: the front, which holds the browsers'
 * sockets. Called from the wire's call threads (virtual, many at once): implementations must be
 * thread-safe and must not block (a slow socket's queue is the front's business).
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
}
