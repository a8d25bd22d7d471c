package dev.cryo.worker;

import dev.cryo.register.Store;
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
 * {@link WorkerException.Reason#LOCK_ORDER}, as is a lifecycle operation from inside a store
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

  /** The page the call is for. */
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
   * @throws WorkerException {@link WorkerException.Reason#LOCK_ORDER} when the thread holds the
   *     connection's or the user's lock; {@link WorkerException.Reason#USER_LEFT} when the page is
   *     no longer registered
   */
  public <T> T withPageStore(Function<Store, T> action) {
    return worker.withStore(Level.PAGE, slot, action);
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
   * root); announced as {@code new_page}.
   */
  public void newPage(String pageId, Map<String, Object> fields) {
    worker.newPage(slot.user(), slot.connectionId(), pageId, fields);
  }

  /** Drops a page (silent when absent); see {@link Worker#dropPage}. */
  public boolean dropPage(String pageId) {
    return worker.dropPage(pageId);
  }

  /**
   * Logs this call's connection into {@code user}; see {@link Worker#login}. When the identity lives
   * elsewhere the hand-over waits for this call to close: never wait for the returned future from
   * inside the handler.
   */
  public CompletableFuture<LoginOutcome> login(String user, boolean identityElsewhere) {
    return worker.login(slot.connectionId(), user, identityElsewhere);
  }
}
