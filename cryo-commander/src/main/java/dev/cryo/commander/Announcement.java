package dev.cryo.commander;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.List;
import java.util.Objects;

/**
 * One announcement of a worker, as the commander folds it into its {@link Routing} maps: the
 * payload of the wire's {@code announce} event (CONTRACTS §2), with its kind parsed. Immutable.
 *
 * @param sequence the worker's running number of the announcement, from 1, one more each time
 * @param kind what happened
 * @param user the user concerned (for a login: the new identity)
 * @param keys the user, connection or page ids the kind names, in the order they went
 * @param detail for {@link AnnouncementKind#LOGIN} the previous owner of the connection; for
 *     {@link AnnouncementKind#NEW_PAGE} the page's connection when the worker says it; null otherwise
 * @param generation the generation the worker holds the user at
 *     ({@link dev.cryo.wire.protocol.Grant}); 0 when it tells none
 * @param request the id of the request whose call caused it (the front's {@code Cryo-Request-Id}),
 *     printed in the event log's {@code fold} line; null when none did
 */
public record Announcement(long sequence, AnnouncementKind kind, String user, List<String> keys,
    String detail, long generation, String request) {

  /** An announcement no request caused. */
  public Announcement(long sequence, AnnouncementKind kind, String user, List<String> keys,
      String detail, long generation) {
    this(sequence, kind, user, keys, detail, generation, null);
  }

  /** Checks the parts and copies the keys. */
  public Announcement {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(user, "user");
    keys = List.copyOf(keys);
  }

  /** An announcement without a generation: a worker that tells none. */
  public Announcement(long sequence, AnnouncementKind kind, String user, List<String> keys,
      String detail) {
    this(sequence, kind, user, keys, detail, 0);
  }

  /** An announcement naming one key, without a generation. */
  public static Announcement of(long sequence, AnnouncementKind kind, String user, String key) {
    return new Announcement(sequence, kind, user, List.of(key), null, 0);
  }
}
