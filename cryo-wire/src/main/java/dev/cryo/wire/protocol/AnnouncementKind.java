package dev.cryo.wire.protocol;

import java.util.Locale;
import java.util.Optional;

/**
 * What a worker's announcement tells: one change of its population. The worker publishes them, the
 * commander folds them; {@link #code()} is the wire's spelling ({@link AnnouncementMessage#kind()}).
 */
public enum AnnouncementKind {
  /** A user entry was born (also when a woken user is rebuilt, before {@link #USER_ADOPTED}). */
  NEW_USER,
  /** A connection was born. */
  NEW_CONNECTION,
  /** A page was born; the announcement's detail names its connection. */
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
  /** A connection was relabelled to a new identity (the login); the detail is the previous owner. */
  LOGIN,
  /** The user is in the freezer. */
  USER_FROZEN,
  /** The user was woken from the freezer on the announcing worker. */
  USER_ADOPTED;

  /** The kind in {@code snake_case}, as the wire carries it. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind the wire spells {@code code}; empty for a kind this side does not know. */
  public static Optional<AnnouncementKind> ofCode(String code) {
    for (AnnouncementKind kind : values()) {
      if (kind.code().equals(code)) {
        return Optional.of(kind);
      }
    }
    return Optional.empty();
  }
}
