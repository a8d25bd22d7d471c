package dev.cryo.admin;

/**
 * What the metrics read of the front's browser sockets: how many are open and how many pushes were
 * delivered to a socket or found none. A seam: the admin module reads it and knows nothing else of
 * the sockets. Implementations are read from the metrics' scrape thread while the sockets change,
 * so each method returns one consistent-enough number without locking anything for long.
 */
public interface SocketStatistics {

  /** No sockets: every figure reads zero (a front without browser sockets). */
  SocketStatistics NONE = new SocketStatistics() {
    @Override
    public long socketsOpen() {
      return 0;
    }

    @Override
    public long pushesDelivered() {
      return 0;
    }

    @Override
    public long pushesUndelivered() {
      return 0;
    }
  };

  /** The sockets open right now. */
  long socketsOpen();

  /** Pushes written to a socket since the front started (never decreases). */
  long pushesDelivered();

  /** Pushes that found no socket to write to since the front started (never decreases). */
  long pushesUndelivered();
}
