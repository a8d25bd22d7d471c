package dev.cryo.worker;

import dev.cryo.register.Store;
import dev.cryo.wire.protocol.RefusalReason;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What the application reaches during one call: the call, the three stores of its chain — each
 * only under its row's lock — and the lifecycle operations a page may ask for.
 *
 * <p>Store access nests only upwards: inside {@link #withPageStore} the action may call
 * {@link #withConnectionStore} and {@link #withUserStore}, inside {@link #withConnectionStore} only
 * {@link #withUserStore}; the other way round is refused with
 * {@link RefusalReason#LOCK_ORDER}, as is a lifecycle operation from inside a store
 * action. A context is valid only during its call, on any thread the handler uses.
 */
public final class CallContext {

  enum Level { PAGE, CONNECTION, USER }

  private final Worker worker;
  private final RequestSlot slot;

  CallContext(Worker worker, RequestSlot slot) {
    this.worker = Objects.requireNonNull(worker);
    this.slot = Objects.requireNonNull(slot);
  }

  /** The worker serving the call, for the worker's own hosts (AppHost). */
  Worker worker() {
    return worker;
  }

  /** The call being served. */
  public Call call() {
    return slot.call();
  }

  /** The user the call is served for (the connection's owner, which a login changes). */
  public String user() {
    return slot.user();
  }

  /** The connection the call comes from. */
  public String connectionId() {
    return slot.connectionId();
  }

  /** The page the call is for, or null for a call from the connection without a page. */
  public String pageId() {
    return slot.pageId();
  }

  /** The name of the worker serving the call. */
  public String workerName() {
    return worker.name();
  }

  /**
   * Runs {@code action} on the page's store holding the page's row lock, and returns its result.
   *
   * @throws WorkerException {@link RefusalReason#LOCK_ORDER} when the thread holds the
   *     connection's or the user's lock; {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} when the page is
   *     no longer registered; {@link RefusalReason#UNKNOWN_PAGE} when the call is for no
   *     page
   */
  public <T> T withPageStore(Function<Store, T> action) {
    return worker.withStore(Level.PAGE, slot, action);
  }

  /**
   * Runs {@code action} on the store of page {@code pageId} — a page of this call's connection, for
   * instance one named in the request's body — holding that page's row lock, and returns its
   * result. Nests as {@link #withPageStore(Function)}.
   *
   * @throws WorkerException {@link RefusalReason#UNKNOWN_PAGE} when the page is not on
   *     this worker or hangs from another connection (nothing was read or written);
   *     {@link RefusalReason#LOCK_ORDER} as {@link #withPageStore(Function)}
   */
  public <T> T withPageStore(String pageId, Function<Store, T> action) {
    return worker.withPageStore(slot, pageId, action);
  }

  /** Whether page {@code pageId} is on this worker and hangs from this call's connection. */
  public boolean hasPage(String pageId) {
    return pageId != null && worker.registry().pageItems().get(pageId)
        .map(page -> page.connectionId().equals(slot.connectionId())).orElse(false);
  }

  /** Runs {@code action} on the connection's store under its row lock; as {@link #withPageStore}. */
  public <T> T withConnectionStore(Function<Store, T> action) {
    return worker.withStore(Level.CONNECTION, slot, action);
  }

  /** Runs {@code action} on the user's store under his row lock; as {@link #withPageStore}. */
  public <T> T withUserStore(Function<Store, T> action) {
    return worker.withStore(Level.USER, slot, action);
  }

  /**
   * Opens a page on this call's connection (a child page when {@code fields} name a parent and a
   * root); announced as {@code new_page}. A page of that id already on this connection is left as
   * it is.
   *
   * @throws WorkerException {@link RefusalReason#USER_MISMATCH} when the id is a page of
   *     another connection's
   */
  public void newPage(String pageId, Map<String, Object> fields) {
    worker.newPage(slot.user(), slot.connectionId(), pageId, fields);
    if (!hasPage(pageId)) {
      throw new WorkerException(RefusalReason.USER_MISMATCH, slot.user(), "page '"
          + pageId + "' already hangs from another connection than '" + slot.connectionId()
          + "'; nothing was created: open the page under a fresh id");
    }
  }

  /** Drops a page (silent when absent); see {@link Worker#dropPage}. */
  public boolean dropPage(String pageId) {
    return worker.dropPage(pageId);
  }

  /**
   * Logs this call's connection into {@code user}; see {@link Worker#login}: the worker asks its
   * {@link IdentityLocator} where that identity lives. When it lives elsewhere the hand-over waits
   * for this call to close (the returned future is then not yet complete): never wait for it from
   * inside the handler.
   */
  public CompletableFuture<LoginOutcome> login(String user) {
    return worker.login(slot.connectionId(), user);
  }
}
