package dev.cryo.front;

/**
 * A read-only view of the front's page sockets, for the status page and the metrics. Every count
 * is read without a lock and may be a moment stale; thread-safe.
 */
public interface SocketStats {

  /** The sockets open now. */
  int open();

  /** The sockets accepted since the front started (refused handshakes excluded). */
  long opened();

  /** The pushes written to at least one socket of their page. */
  long pushesDelivered();

  /** The pushes whose page had no open socket (or only sockets closed meanwhile). */
  long pushesUndelivered();

  /** The sockets closed because their reader fell behind past the outbound bound. */
  long slowReadersClosed();
}
