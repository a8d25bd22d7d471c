package dev.cryo.worker;

import java.util.Objects;

/**
 * One call in flight on a worker: opened by {@link Worker#openRequest} (for {@link AppHost#serve})
 * once the user is awake and the connection (and page) are registered, closed by {@link #close()}. While a user has a slot open he is not frozen;
 * a departure ordered meanwhile waits for his last slot to close (or for the quit's grace to run
 * out). Closing is idempotent and may happen on any thread.
 */
final class RequestSlot implements AutoCloseable {

  private final Worker worker;
  private final Arrival arrival;
  volatile Tenant tenant; // moved by a login, under both users' locks
  volatile String user;

  RequestSlot(Worker worker, Tenant tenant, Arrival arrival) {
    this.worker = Objects.requireNonNull(worker);
    this.tenant = tenant;
    this.user = tenant.user;
    this.arrival = arrival;
  }

  /** How the call this slot serves arrived. */
  Arrival arrival() {
    return arrival;
  }

  /** The user the call is served for: the connection's owner (it changes with a login). */
  String user() {
    return user;
  }

  /** The connection the call comes from. */
  String connectionId() {
    return arrival.connectionId();
  }

  /** The page the call is for, or null for a call from the connection without a page. */
  String pageId() {
    return arrival.pageId();
  }

  /**
   * Closes the slot: counts the call as served and, when it was the user's last one, starts the
   * departure that waited for it. Idempotent.
   */
  @Override
  public void close() {
    worker.close(this);
  }
}
