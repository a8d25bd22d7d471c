package dev.cryo.register;

import static dev.cryo.register.RegisterRegistry.CONNECTION_ITEMS;
import static dev.cryo.register.RegisterRegistry.PAGE_ITEMS;
import static dev.cryo.register.RegisterRegistry.USER_ITEMS;

import dev.cryo.register.RegisterException.Reason;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * What the chain's protocols share: the three primary registers and their one structure lock, the
 * clock that stamps births, the registry's factories and its seams, and the small helpers of the
 * births, the login and the demolitions (the fields a birth sets, the refusals they share).
 *
 * <p>Immutable after construction; the registers are thread-safe under the package's rules.
 */
final class Chain {

  final RegisterRegistry registry;
  final Clock clock;
  final PageSeams seams;
  final StructureLock structure = new StructureLock();
  final Lock write = structure.write();
  final Register<UserRow> users;
  final Register<ConnectionRow> connections;
  final Register<PageRow> pages;

  /** The chain of {@code registry}, whose row factories and store factory it calls. */
  Chain(RegisterRegistry registry, Clock clock, PageSeams seams) {
    this.registry = registry;
    this.clock = clock;
    this.seams = seams;
    this.users = new Register<>(USER_ITEMS, registry::newUserRow, List.of(), structure, true);
    this.connections =
        new Register<>(CONNECTION_ITEMS, registry::newConnectionRow, List.of(), structure, true);
    this.pages = new Register<>(PAGE_ITEMS, registry::newPageRow, List.of(), structure, true);
    // The pages of a connection are filed once, in the connection's own set: the index on
    // connection_id reads that set, so the index and the edge are one structure.
    pages.deriveIndex(PageRow.CONNECTION_ID,
        new EdgeIndex(connections, connection -> ((ConnectionRow) connection).pages));
    pages.addIndex(PageRow.ROOT_PAGE_ID);
  }

  /**
   * The pairs the registry sets at a birth — {@code first}, then a new store and the clock's instant
   * unless {@code fields} supplies them — followed by free slots for the caller's fields.
   */
  Object[] births(Map<String, ?> fields, Object... first) {
    return births(fields.size(), !fields.containsKey(ChainRow.STORE),
        !fields.containsKey(ChainRow.LAST_REFRESH_TS), first);
  }

  Object[] births(int fieldCount, boolean store, boolean stamp, Object... first) {
    Object[] pairs = Arrays.copyOf(first,
        first.length + (store ? 2 : 0) + (stamp ? 2 : 0) + 2 * fieldCount);
    int length = first.length;
    if (store) {
      pairs[length++] = ChainRow.STORE;
      pairs[length++] = store();
    }
    if (stamp) {
      pairs[length++] = ChainRow.LAST_REFRESH_TS;
      pairs[length] = clock.instant();
    }
    return pairs;
  }

  /** A store from the factory, which must make one. */
  Object store() {
    Object store = registry.newStore();
    if (store == null) {
      throw new IllegalStateException(registry.getClass().getName()
          + ".newStore() returned null; a row needs a live store: return one");
    }
    return store;
  }

  static void refuseIfRegistered(Register<?> register, String key) {
    if (register.contains(key)) {
      throw register.duplicate(key);
    }
  }

  static void checkFields(Row row, Map<String, ?> fields) {
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      Register.refuseCallerField(row.registerName(), row.key(), row, field.getKey());
      row.check(field.getKey(), field.getValue());
    }
  }

  static void refuseIfLeaving(Row row, String operation, String key) {
    if (row != null && row.state == Row.LEAVING) {
      throw new RegisterException(Reason.BEING_DROPPED, row.registerName(), row.key(),
          operation + " '" + key + "': " + row.getClass().getSimpleName() + " '" + row.key()
              + "' is being dropped by another call; nothing was changed: retry once it is gone");
    }
  }

  static RegisterException lockOrder(String operation, String key, Row held) {
    return new RegisterException(Reason.LOCK_ORDER, held.registerName(), held.key(),
        operation + " '" + key + "': this thread holds the lock of " + held.getClass().getSimpleName()
            + " '" + held.key() + "', and the call would then lock rows below it, against the "
            + "lock order (page, then connection, then user); nothing was changed: release that "
            + "lock and call again");
  }
}
