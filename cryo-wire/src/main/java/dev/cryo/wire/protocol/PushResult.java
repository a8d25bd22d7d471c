package dev.cryo.wire.protocol;

/**
 * The commander's answer to a {@link PushMessage}.
 *
 * @param pages how many pages the target named, as the commander's maps say (frozen users' pages
 *     included: their sockets are in the front)
 * @param written how many of those pages had a socket the message was written to
 */
public record PushResult(int pages, int written) {

  /** Checks the counts. */
  public PushResult {
    if (pages < 0 || written < 0 || written > pages) {
      throw new IllegalArgumentException("a push reaches 0 to " + pages + " pages, not "
          + written);
    }
  }
}
