package dev.cryo.front;

/**
 * The bounds of one page socket: what keeps a hostile or slow browser from growing the front's
 * memory without bound.
 *
 * @param maxMessageChars the longest text message a browser may send; longer closes the socket
 *     with 1009 (message too big)
 * @param maxInFlight how many calls of one socket may run at once; more are answered 429 at once
 * @param maxQueuedChars how many characters of replies and pushes may wait to be written to one
 *     socket; past it the reader is too slow and the socket is closed (1008) and cut
 */
public record SocketLimits(int maxMessageChars, int maxInFlight, long maxQueuedChars) {

  /** 64 Ki characters a message, 16 calls in flight, 1 Mi characters queued. */
  public static final SocketLimits DEFAULTS = new SocketLimits(64 * 1024, 16, 1024 * 1024);

  /** Checks the bounds. */
  public SocketLimits {
    if (maxMessageChars < 256 || maxInFlight < 1 || maxQueuedChars < maxMessageChars) {
      throw new IllegalArgumentException("socket limits need messages of at least 256 characters,"
          + " at least one call in flight and a queue at least one message long; got "
          + maxMessageChars + ", " + maxInFlight + ", " + maxQueuedChars);
    }
  }
}
