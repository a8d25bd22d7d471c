package dev.cryo.bench.register;

import java.util.Set;

/**
 * The bookkeeping of the ownership chain as the benchmark drives it: the same four operations, on
 * the registry and on the plain-map baseline.
 */
interface Chain {

  /**
   * Registers a page under a connection and a user, creating them when unseen.
   *
   * @param parent the parent page, or null for a root
   * @param root the root page, or null for a root (then the page itself)
   */
  void newPage(String page, String user, String connection, String parent, String root);

  /** The user owning a page, derived through its connection. */
  String pageUser(String page);

  /** The pages of a connection, as a snapshot. */
  Set<String> keysByConnection(String connection);

  /** Drops a user with every connection and page of it. */
  void dropUser(String user);

  /** How many pages are registered. */
  int pageCount();

  /**
   * Takes and releases the lock of every row once, as a worker whose every page has been called
   * would have; a chain without row locks does nothing.
   */
  default void lockEveryRowOnce() {}
}
