package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Objects;

/**
 * One announcement of a worker: a change of its population, in the worker's order.
 *
 * @param seq the worker's running number of the announcement, from 1, growing by one
 * @param kind what happened, in snake_case: {@code new_user, new_connection, new_page, drop_page,
 *     drop_pages, drop_connection, drop_connections, drop_user, login, user_frozen, user_adopted}
 * @param user the user concerned (for a login, the new identity)
 * @param keys the user, connection or page ids the kind names
 * @param detail for {@code login} the connection's previous owner; for {@code new_page} the
 *     connection the page belongs to; null otherwise
 * @param generation the generation the worker holds the user at ({@link Grant}); 0 for a worker
 *     alone, and for a user it no longer holds
 * @param request the id of the request whose call caused the change (the front's
 *     {@code Cryo-Request-Id}, which the commander's event log prints beside the fold); null for
 *     a change no request caused (a freeze, a drop of the worker's own) or a worker that tells none
 */
public record AnnouncementMessage(long seq, String kind, String user, List<String> keys,
    String detail, long generation, String request) {

  /** An announcement no request caused. */
  public AnnouncementMessage(long seq, String kind, String user, List<String> keys, String detail,
      long generation) {
    this(seq, kind, user, keys, detail, generation, null);
  }

  /** Checks the required parts and copies the keys. */
  public AnnouncementMessage {
    Objects.requireNonNull(kind, "kind");
    keys = keys == null ? List.of() : List.copyOf(keys);
  }
}
