package dev.cryo.app;

/** Where a {@link State} lives: with the user, with one of his connections, or with one of its pages. For hosts. */
public enum Scope {
  /** The user's state: follows him across his connections and into his first identity. */
  USER,
  /** The connection's state (a browser, a device). */
  CONNECTION,
  /** A page's state (a tab), named by its id. */
  PAGE
}
