package dev.cryo.worker;

import dev.cryo.freezer.ParcelTree;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Row;
import dev.cryo.register.Store;
import dev.cryo.register.UserRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rows to parcels and back. A parcel is plain data (maps with string keys, lists, strings, numbers,
 * booleans, bytes, null), so any codec carries it and none instantiates a class from it.
 *
 * <p>A user parcel holds the user's own fields, clocks and store, and the ids of the connections
 * frozen with him. A connection parcel holds the connection's fields, clocks and store, and its pages
 * with theirs; a connection left by the login tail also carries its guest's store. What is left
 * behind: the key, the chain (rebuilt by the lifecycle), the row's state, and any field whose value
 * is not plain data.
 */
final class Parcels {

  static final String KIND = "parcel";
  static final String USER_KIND = "user";
  static final String CONNECTION_KIND = "connection";
  static final String FIELDS = "fields";
  static final String CLOCKS = "clocks";
  static final String STORE = "store";
  static final String CONNECTIONS = ParcelTree.CONNECTIONS;
  static final String PAGES = ParcelTree.PAGES;
  static final String ID = ParcelTree.ID;
  static final String CARRIED_USER_STORE = "carried_user_store";
  /**
   * The generation of the stay that wrote the parcel ({@link dev.cryo.wire.protocol.Grant}); absent
   * means 0 (a worker alone, or a version before generations).
   */
  static final String GENERATION = dev.cryo.wire.protocol.Grant.PARCEL_FIELD;
  /**
   * Marks a connection parcel a login tail handed over to its identity: the only connection parcel
   * a worker adopts by itself; any other waits for its user's wake.
   */
  static final String HANDED_OVER = ParcelTree.HANDED_OVER;
  /** A checkpoint's connection parcels, inside its user parcel ({@link Checkpoints}). */
  static final String CONNECTION_PARCELS = ParcelTree.CONNECTION_PARCELS;
  /** The state version of the application that wrote the parcel; absent means 1. */
  static final String STATE_VERSION = "state_version";

  /** The clocks, stamped up the chain. */
  static final String LAST_REFRESH_TS = "last_refresh_ts";
  static final String LAST_RPC_TS = "last_rpc_ts";
  static final String LAST_USER_TS = "last_user_ts";
  static final List<String> CLOCK_FIELDS = List.of(LAST_REFRESH_TS, LAST_RPC_TS, LAST_USER_TS);

  private static final Set<String> LEFT_BEHIND = Set.of(Row.KEY_FIELD, "store",
      UserRow.CONNECTIONS, ConnectionRow.PAGES, ConnectionRow.USER, PageRow.CONNECTION_ID,
      UserState.FIELD, LAST_REFRESH_TS, LAST_RPC_TS, LAST_USER_TS);

  private Parcels() {}

  /**
   * The user parcel of {@code user}: fields, clocks, store (read under its lock, tried), connection
   * ids.
   *
   * @throws LockOrder.RowBusy when a store's row is locked by another thread
   */
  static Map<String, Object> user(UserRow user, List<String> connectionIds, int stateVersion,
      long generation) {
    Map<String, Object> parcel = row(user, USER_KIND);
    parcel.put(CONNECTIONS, List.copyOf(connectionIds));
    parcel.put(STATE_VERSION, stateVersion);
    parcel.put(GENERATION, generation);
    return parcel;
  }

  /** The generation a parcel was written at: its {@link #GENERATION}, 0 when absent or not whole. */
  static long generationOf(Map<?, ?> parcel) {
    return dev.cryo.wire.protocol.Grant.generationOf(parcel);
  }

  /** Whether a connection parcel was handed over by a login tail ({@link #HANDED_OVER}). */
  static boolean handedOver(Map<?, ?> parcel) {
    return ParcelTree.handedOver(parcel);
  }

  /**
   * The parcel of one connection with its pages; {@code carried} is a guest store, or null.
   *
   * @throws LockOrder.RowBusy when a store's row is locked by another thread
   */
  static Map<String, Object> connection(ConnectionRow connection, List<PageRow> pages,
      Map<String, Object> carried, int stateVersion) {
    Map<String, Object> parcel = row(connection, CONNECTION_KIND);
    parcel.put(STATE_VERSION, stateVersion);
    List<Object> pageParcels = new ArrayList<>(pages.size());
    for (PageRow page : pages) {
      pageParcels.add(row(page, "page"));
    }
    parcel.put(PAGES, pageParcels);
    if (carried != null) {
      parcel.put(CARRIED_USER_STORE, carried);
    }
    return parcel;
  }

  /**
   * A row's store content, read under the row's lock, which is tried, never waited for: the
   * parcels are made by departures holding a semaphore on a disk thread, and a call's store action
   * may hold the row (a straggler, cut by a quit).
   *
   * @throws LockOrder.RowBusy when the row's lock is held by another thread (nothing is held)
   */
  static Map<String, Object> storeOf(Row row) {
    if (!row.lock().tryLock()) {
      String level = row instanceof PageRow ? "page" : row instanceof ConnectionRow ? "connection"
          : row instanceof UserRow ? "user" : "";
      throw new LockOrder.RowBusy("the " + level + " row '" + row.key() + "'");
    }
    try {
      Store store = row.get(STORE, Store.class);
      return store == null ? Map.of() : store.toMap();
    } finally {
      row.lock().unlock();
    }
  }

  private static Map<String, Object> row(Row row, String kind) {
    Map<String, Object> parcel = new LinkedHashMap<>();
    parcel.put(KIND, kind);
    parcel.put(ID, row.key());
    Map<String, Object> fields = new LinkedHashMap<>();
    Map<String, Object> clocks = new LinkedHashMap<>();
    for (Map.Entry<String, Object> field : row.fields().entrySet()) {
      String name = field.getKey();
      Object value = field.getValue();
      if (CLOCK_FIELDS.contains(name)) {
        if (value instanceof Instant instant) {
          clocks.put(name, IsoInstant.format(instant));
        }
      } else if (!LEFT_BEHIND.contains(name) && isPlain(value, 0)) {
        fields.put(name, value);
      }
    }
    parcel.put(FIELDS, fields);
    parcel.put(CLOCKS, clocks);
    parcel.put(STORE, storeOf(row));
    return parcel;
  }

  /**
   * Whether a row's store is empty, read under the row's lock, tried: a row whose lock another
   * thread holds (a call in its store) counts as not empty.
   */
  static boolean storeEmpty(Row row) {
    if (!row.lock().tryLock()) {
      return false;
    }
    try {
      Store store = row.get(STORE, Store.class);
      return store == null || store.isEmpty();
    } finally {
      row.lock().unlock();
    }
  }

  /**
   * Whether a freeze's parcels hold nothing: the user parcel's store, and every connection
   * parcel's store, carried guest store and pages' stores, are all empty.
   */
  static boolean holdNothing(Map<String, Object> userParcel,
      java.util.Collection<Map<String, Object>> connectionParcels) {
    if (!emptyStore(userParcel.get(STORE))) {
      return false;
    }
    for (Map<String, Object> connection : connectionParcels) {
      if (!emptyStore(connection.get(STORE)) || !emptyStore(connection.get(CARRIED_USER_STORE))) {
        return false;
      }
      if (connection.get(PAGES) instanceof List<?> pages) {
        for (Object page : pages) {
          if (!(page instanceof Map<?, ?> map) || !emptyStore(map.get(STORE))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean emptyStore(Object store) {
    return store == null || store instanceof Map<?, ?> map && map.isEmpty();
  }

  /** The fields to rebuild a row with: its own fields, its clocks, and a store of its content. */
  static Map<String, Object> rebuildFields(Map<?, ?> parcel) {
    Map<String, Object> fields = new HashMap<>();
    if (parcel.get(FIELDS) instanceof Map<?, ?> own) {
      for (Map.Entry<?, ?> field : own.entrySet()) {
        fields.put((String) field.getKey(), field.getValue());
      }
    }
    if (parcel.get(CLOCKS) instanceof Map<?, ?> clocks) {
      for (Map.Entry<?, ?> clock : clocks.entrySet()) {
        if (CLOCK_FIELDS.contains(clock.getKey()) && clock.getValue() instanceof String text) {
          fields.put((String) clock.getKey(), IsoInstant.parse(text));
        }
      }
    }
    fields.put("store", storeFrom(parcel.get(STORE)));
    return fields;
  }

  /** A store holding {@code content} (a map from a parcel), or an empty one. */
  static Store storeFrom(Object content) {
    if (content instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        copy.put((String) entry.getKey(), entry.getValue());
      }
      return Store.copyOf(copy);
    }
    return new Store();
  }

  /**
   * {@code parcel} as {@code application} reads it: itself when stamped with its state version, else
   * a copy whose stores (the row's, its pages', a carried guest store) went through
   * {@link AppHost#readStore}.
   *
   * @throws Unreadable when the application cannot read it (nothing is changed)
   */
  static Map<?, ?> readable(Map<?, ?> parcel, AppHost application) {
    Object stamp = parcel.containsKey(STATE_VERSION) ? parcel.get(STATE_VERSION) : 1;
    if (!(stamp instanceof Integer || stamp instanceof Long)) {
      throw new Unreadable(1, "its state version is " + stamp + ", not a whole number");
    }
    long version = ((Number) stamp).longValue();
    int running = application.stateVersion();
    if (version == running) {
      return parcel;
    }
    if (version < 1 || version > Integer.MAX_VALUE) {
      throw new Unreadable(version, "its state version " + version + " is not 1 or more");
    }
    try {
      Map<String, Object> copy = new LinkedHashMap<>();
      parcel.forEach((key, value) -> copy.put((String) key, value));
      String level = USER_KIND.equals(parcel.get(KIND)) ? USER_KIND : CONNECTION_KIND;
      copy.put(STORE, readStore(application, level, (int) version, parcel.get(STORE)));
      if (parcel.get(CARRIED_USER_STORE) != null) {
        copy.put(CARRIED_USER_STORE, readStore(application, USER_KIND, (int) version,
            parcel.get(CARRIED_USER_STORE)));
      }
      if (parcel.get(PAGES) instanceof List<?> pages) {
        List<Object> upgraded = new ArrayList<>(pages.size());
        for (Object page : pages) {
          Map<String, Object> pageCopy = new LinkedHashMap<>();
          ((Map<?, ?>) page).forEach((key, value) -> pageCopy.put((String) key, value));
          pageCopy.put(STORE, readStore(application, "page", (int) version,
              ((Map<?, ?>) page).get(STORE)));
          upgraded.add(pageCopy);
        }
        copy.put(PAGES, upgraded);
      }
      copy.put(STATE_VERSION, running);
      return copy;
    } catch (RuntimeException e) {
      throw new Unreadable(version, e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private static Map<String, Object> readStore(AppHost application, String level,
      int version, Object content) {
    Map<String, Object> store = new LinkedHashMap<>();
    if (content instanceof Map<?, ?> map) {
      map.forEach((key, value) -> store.put((String) key, value));
    }
    return application.readStore(level, version, store);
  }

  /** A parcel the running application cannot read: the version stamped on it, and why. */
  static final class Unreadable extends RuntimeException {
    final long version;

    Unreadable(long version, String why) {
      super(why);
      this.version = version;
    }
  }

  /** The ids a user parcel lists as frozen with him. */
  static List<String> connectionIds(Map<?, ?> userParcel) {
    List<String> ids = new ArrayList<>();
    if (userParcel.get(CONNECTIONS) instanceof List<?> list) {
      for (Object id : list) {
        ids.add((String) id);
      }
    }
    return ids;
  }

  /** The page parcels of a connection parcel, roots first. */
  static List<Map<?, ?>> pages(Map<?, ?> connectionParcel) {
    List<Map<?, ?>> roots = new ArrayList<>();
    List<Map<?, ?>> children = new ArrayList<>();
    if (connectionParcel.get(PAGES) instanceof List<?> list) {
      for (Object page : list) {
        Map<?, ?> map = (Map<?, ?>) page;
        boolean root = !(map.get(FIELDS) instanceof Map<?, ?> fields)
            || fields.get(PageRow.PARENT_PAGE_ID) == null;
        (root ? roots : children).add(map);
      }
    }
    roots.addAll(children);
    return roots;
  }

  private static boolean isPlain(Object value, int depth) {
    if (depth > Store.MAX_DEPTH) {
      return false;
    }
    if (value == null || value instanceof String || value instanceof Number
        || value instanceof Boolean || value instanceof byte[]) {
      return true;
    }
    if (value instanceof List<?> list) {
      for (Object element : list) {
        if (!isPlain(element, depth + 1)) {
          return false;
        }
      }
      return true;
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String) || !isPlain(entry.getValue(), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /** The registry's name for a guest of {@code connectionId}. */
  static String guestOf(String connectionId) {
    return RegisterRegistry.GUEST_PREFIX + connectionId;
  }
}
