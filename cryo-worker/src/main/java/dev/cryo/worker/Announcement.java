package dev.cryo.worker;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.List;
import java.util.Objects;

/**
 * One change of a worker's population, told to whoever drives the worker (the commander folds them
 * into its routing maps). Announcements are delivered in the order they happened: {@link #sequence}
 * grows by one each time, and for one user they follow the order of his changes.
 *
 * @param sequence the worker's running number of the announcement, from 1
 * @param kind what happened
 * @param user the user concerned (for a login: the new identity)
 * @param keys the keys concerned: the user, connection or page ids the kind names, in the order they
 *     went; one key for a singular kind, one or more for a plural one
 * @param detail what else the kind carries: for {@link AnnouncementKind#USER_FROZEN} the placement (the worker
 *     the user stays assigned to, or null for none); for {@link AnnouncementKind#LOGIN} the previous owner of the
 *     connection; for {@link AnnouncementKind#NEW_PAGE} the connection the page belongs to; null otherwise
 * @param generation the generation the worker holds the user at as it announces
 *     ({@link dev.cryo.wire.protocol.Grant}); 0 for a worker alone and for a user it does not hold
 * @param request the id of the request whose call caused the change, published on the thread
 *     serving it ({@link Announcer#causedBy}); null for a change no request caused
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
    keys = List.copyOf(keys);
  }
}
