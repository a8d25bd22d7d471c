package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * A worker's push: a message from the application to the browser pages of one page, one
 * connection or one user, which the commander hands to the front's sockets.
 *
 * @param target {@link #PAGE}, {@link #CONNECTION} or {@link #USER}
 * @param key the page id, the connection id or the user, as {@code target} says
 * @param data the message: the UTF-8 bytes of one JSON value, passed to the page as it is
 */
public record PushMessage(String target, String key, byte[] data) {

  /** To every socket bound to one page. */
  public static final String PAGE = "page";
  /** To every page of one connection. */
  public static final String CONNECTION = "connection";
  /** To every page of every connection of one user. */
  public static final String USER = "user";

  /** Checks the fields; the target is one of the three. */
  public PushMessage {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    if (!target.equals(PAGE) && !target.equals(CONNECTION) && !target.equals(USER)) {
      throw new IllegalArgumentException("a push goes to a page, a connection or a user, not '"
          + target + "'");
    }
  }
}
