package dev.cryo.front;

/**
 * A read-only view of the front's limits against overload and hostile clients — each limit's
 * setting, what it holds now and how often it refused — for the status page and the metrics.
 * Every count is read without a lock and may be a moment stale; thread-safe.
 */
public interface LimitStats {

  /** The request-body bytes the front may hold at once ({@code --max-buffered-bodies}). */
  long bodyBytesLimit();

  /** The request-body bytes held now. */
  long bodyBytesHeld();

  /** The requests and socket calls refused (503) because their body was over the budget. */
  long bodiesRefused();

  /** The limits on what one client and all of them may hold. */
  ClientLimits clients();

  /** The TCP connections open now on the public port. */
  int connectionsOpen();

  /** The TCP connections closed as soon as accepted, over a connection limit. */
  long connectionsRefused();

  /** The connections closed because a request took longer than the request timeout to arrive. */
  long slowRequestsCut();

  /** The page sockets closed as soon as opened, over a socket limit. */
  long socketsRefused();

  /** The budget of new visitors per client address ({@code --new-visitors-per-address}). */
  NewVisitorBudget newVisitors();

  /** The new visitors (requests without a known cookie) refused 429 over that budget. */
  long newVisitorsRefused();
}
