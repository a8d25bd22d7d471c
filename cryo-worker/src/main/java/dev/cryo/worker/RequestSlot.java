package dev.cryo.worker;

import java.util.Objects;

/**
 * One call in flight on a worker: opened by {@link Worker#openRequest} once the user is awake and
 * the page is registered, closed by {@link #close()}. While a user has a slot open he is not frozen;
 * a departure ordered meanwhile waits for his last slot to close (or for the quit's grace to run
 * out). Closing is idempotent and may happen on any thread.
 */
public final class RequestSlot implements AutoCloseable {

  private final Worker worker;
  private final Call call;
  volatile Tenant tenant; // moved by a login, under both users' locks
  volatile String user;

  RequestSlot(Worker worker, Tenant tenant, Call call) {
    this.worker = Objects.requireNonNull(worker);
    this.tenant = tenant;
    this.user = tenant.user;
    this.call = call;
  }

  /** The call this slot serves. */
  public Call call() {
    return call;
  }

  /** The user the call is served for: the connection's owner (it changes with a login). */
  public String user() {
    return user;
  }

  /** The connection the call comes from. */
  public String connectionId() {
    return call.connectionId();
  }

  /** The page the call is for, or null for a call from the connection without a page. */
  public String pageId() {
    return call.pageId();
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
