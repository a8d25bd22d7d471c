package dev.cryo.worker;

import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Store;
import dev.cryo.register.UserRow;
import dev.cryo.wire.protocol.RefusalReason;
import java.util.Objects;
import java.util.function.Function;

/**
 * A call's reach into the stores of its chain, for {@link CallContext}: each store only under its
 * row's lock, nested upwards only (page, then connection, then user), and marked as a store
 * action for the lock order — no tenant lock may be taken until it returns ({@link LockOrder}).
 * Thread-safe; a store action runs on the caller's thread.
 */
final class StoreAccess {

  private final String name;
  private final RegisterRegistry registry;

  StoreAccess(String name, RegisterRegistry registry) {
    this.name = name;
    this.registry = registry;
  }

  /** Runs a store action under its row's lock; see {@link CallContext#withPageStore}. */
  <T> T withStore(CallContext.Level level, RequestSlot slot, Function<Store, T> action) {
    if (level == CallContext.Level.PAGE && slot.pageId() == null) {
      throw new WorkerException(RefusalReason.UNKNOWN_PAGE, slot.user(), "the call from"
          + " connection '" + slot.connectionId() + "' is for no page, so it has no page store;"
          + " nothing was read or written: name the page (withPageStore(pageId, action))");
    }
    return withStore(level, slot, slot.pageId(), action);
  }

  /**
   * Runs a store action on the store of page {@code pageId}, which must hang from the call's
   * connection; see {@link CallContext#withPageStore(String, Function)}.
   */
  <T> T withPageStore(RequestSlot slot, String pageId, Function<Store, T> action) {
    Objects.requireNonNull(pageId, "pageId");
    PageRow page = registry.pageItems().get(pageId).orElse(null);
    if (page == null || !page.connectionId().equals(slot.connectionId())) {
      throw new WorkerException(RefusalReason.UNKNOWN_PAGE, slot.user(), "page '" + pageId
          + "' " + (page == null ? "is not on worker " + name
              : "hangs from another connection than '" + slot.connectionId() + "'")
          + "; nothing was read or written: a call reaches only the pages of its own connection");
    }
    return withStore(CallContext.Level.PAGE, slot, pageId, action);
  }

  private <T> T withStore(CallContext.Level level, RequestSlot slot, String pageId,
      Function<Store, T> action) {
    PageRow page = pageId == null ? null : registry.pageItems().get(pageId).orElse(null);
    ConnectionRow connection = registry.connectionItems().get(slot.connectionId()).orElse(null);
    UserRow user = connection == null ? null : registry.userItems().get(connection.user()).orElse(null);
    dev.cryo.register.Row row = switch (level) {
      case PAGE -> page;
      case CONNECTION -> connection;
      case USER -> user;
    };
    if (row == null) {
      Tenant tenant = slot.tenant;
      WorkerException.Where where = !tenant.present() && tenant.leftTo() != null ? tenant.leftTo()
          : WorkerException.Where.MOVING;
      throw WorkerException.userLeft(slot.user(), where, "the " + level
          + " row of the call from connection '" + slot.connectionId() + "'"
          + (pageId == null ? "" : " for page '" + pageId + "'") + " is no longer on worker "
          + name + "; nothing was read or written: the user left (a cut call, a drop)");
    }
    if (level == CallContext.Level.PAGE && !page.connectionId().equals(slot.connectionId())) {
      throw new WorkerException(RefusalReason.UNKNOWN_PAGE, slot.user(), "page '" + pageId
          + "' no longer hangs from connection '" + slot.connectionId() + "'; nothing was read or"
          + " written");
    }
    boolean outOfOrder = switch (level) {
      case PAGE -> held(connection) || held(user);
      case CONNECTION -> held(user);
      case USER -> false;
    };
    if (outOfOrder) {
      throw new WorkerException(RefusalReason.LOCK_ORDER, slot.user(), "the " + level
          + " store was asked for while holding the lock of a row above it; nothing was run: nest"
          + " store actions upwards only (page, then connection, then user)");
    }
    row.lock().lock(); // no tenant lock is held here: a handler holds none
    LockOrder.enterStoreAction(); // from here until it returns, no tenant lock may be taken
    try {
      return action.apply(row.get("store", Store.class));
    } finally {
      LockOrder.exitStoreAction();
      row.lock().unlock();
    }
  }

  /** Whether the calling thread holds {@code row}'s lock. */
  static boolean held(dev.cryo.register.Row row) {
    return row != null && row.lock().isHeldByCurrentThread();
  }
}
