package dev.cryo.worker;

import java.util.List;
import java.util.Locale;
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
 * @param detail what else the kind carries: for {@link Kind#USER_FROZEN} the placement (the worker
 *     the user stays assigned to, or null for none); for {@link Kind#LOGIN} the previous owner of the
 *     connection; for {@link Kind#NEW_PAGE} the connection the page belongs to; null otherwise
 */
public record Announcement(long sequence, Kind kind, String user, List<String> keys, String detail) {

  /** What an announcement tells; {@link #code()} is the wire spelling. */
  public enum Kind {
    /** A user entry was born (also when a woken user is rebuilt). */
    NEW_USER,
    /** A connection was born. */
    NEW_CONNECTION,
    /** A page was born. */
    NEW_PAGE,
    /** One page was dropped, the one a drop named. */
    DROP_PAGE,
    /** Pages dropped with their connection or user (a cascade, or a freeze emptying memory). */
    DROP_PAGES,
    /** One connection was dropped (named, or taken by its last page). */
    DROP_CONNECTION,
    /** Connections dropped with their user. */
    DROP_CONNECTIONS,
    /** A user entry was dropped. */
    DROP_USER,
    /** A connection was relabelled to a new identity (the login). */
    LOGIN,
    /** The user is in the freezer; {@link #detail} is the placement. */
    USER_FROZEN,
    /** The user was woken from the freezer here. */
    USER_ADOPTED;

    /** The kind in {@code snake_case}, as the wire carries it. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the parts and copies the keys. */
  public Announcement {
    Objects.requireNonNull(kind, "kind");
    keys = List.copyOf(keys);
  }
}
