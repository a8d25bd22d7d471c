package dev.cryo.chaos.history;

import java.util.Locale;

/** What an operation of the workload does, against the demo's JSON API (docs/demo.md). */
public enum Function {
  /** {@code POST /api/pages}: opens a page for the virtual user's connection. */
  OPEN_PAGE,
  /** {@code POST /api/counter}: one more on the user's counter and the page's (not idempotent). */
  INC,
  /** {@code POST /api/notes}: appends the page's next numbered note. */
  NOTE,
  /** {@code GET /api/state}: reads the user's counter and the page's counter and notes. */
  READ,
  /** {@code POST /api/login}: the connection logs in as an identity (a 303 is followed). */
  LOGIN,
  /** {@code POST /api/move}: the user is frozen where he is and woken on another worker. */
  MOVE;

  /** The name in the history: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The function a history names. */
  public static Function of(String wireName) {
    return valueOf(wireName.toUpperCase(Locale.ROOT));
  }
}
