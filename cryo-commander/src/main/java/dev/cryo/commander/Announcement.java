package dev.cryo.commander;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One announcement of a worker, as the commander folds it into its {@link Routing} maps: the
 * payload of the wire's {@code announce} event (CONTRACTS §2), with its kind parsed. Immutable.
 *
 * @param sequence the worker's running number of the announcement, from 1, one more each time
 * @param kind what happened
 * @param user the user concerned (for a login: the new identity)
 * @param keys the user, connection or page ids the kind names, in the order they went
 * @param detail for {@link Kind#LOGIN} the previous owner of the connection; for
 *     {@link Kind#NEW_PAGE} the page's connection when the worker says it; null otherwise
 */
public record Announcement(long sequence, Kind kind, String user, List<String> keys, String detail) {

  /** What an announcement tells; {@link #code()} is the wire's spelling. */
  public enum Kind {
    /** A user entry was born on the worker (also when a woken user is rebuilt). */
    NEW_USER,
    /** A connection was born. */
    NEW_CONNECTION,
    /** A page was born. */
    NEW_PAGE,
    /** One page was dropped. */
    DROP_PAGE,
    /** Pages dropped with their connection or user, or emptied from memory by a freeze. */
    DROP_PAGES,
    /** One connection was dropped. */
    DROP_CONNECTION,
    /** Connections dropped with their user. */
    DROP_CONNECTIONS,
    /** A user entry was dropped. */
    DROP_USER,
    /** A connection was relabelled to a new identity. */
    LOGIN,
    /** The user is in the freezer. */
    USER_FROZEN,
    /** The user was woken from the freezer on this worker. */
    USER_ADOPTED;

    /** The kind in {@code snake_case}, as the wire carries it. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The kind the wire spells {@code code}; empty for a kind this commander does not know. */
    public static Optional<Kind> ofCode(String code) {
      for (Kind kind : values()) {
        if (kind.code().equals(code)) {
          return Optional.of(kind);
        }
      }
      return Optional.empty();
    }
  }

  /** Checks the parts and copies the keys. */
  public Announcement {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(user, "user");
    keys = List.copyOf(keys);
  }

  /** An announcement naming one key. */
  public static Announcement of(long sequence, Kind kind, String user, String key) {
    return new Announcement(sequence, kind, user, List.of(key), null);
  }
}
