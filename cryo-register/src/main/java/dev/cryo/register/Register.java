package dev.cryo.register;

import dev.cryo.register.RegisterException.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * A named map from key to {@link Row}, with secondary indexes on named fields (field value to the
 * keys of the rows holding it).
 *
 * <pre>{@code
 * Register<Row> sockets = Register.of("socket_items", "worker");
 * sockets.create("s1", Map.of("worker", "w1", "opened", now));
 * sockets.keysBy("worker", "w1");          // [s1]
 * sockets.update("s1", Map.of("worker", "w2"));
 * sockets.keysBy("worker", "w1");          // []
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link #create} refuses a key already registered and a caller passing
 *       {@value Row#KEY_FIELD}; the row is built by the register's row factory, receives the row
 *       class's {@linkplain Row#defaultFields() defaults} and then the caller's fields, verbatim.
 *   <li>{@link #update} merges fields into a row and re-files it only in the indexes of the indexed
 *       fields whose value changed; the key cannot be changed. {@link Row#set} and {@link Row#remove}
 *       follow the same path: an indexed field can only change through the register, so an index
 *       never goes stale.
 *   <li>A row lacking an indexed field, or holding {@code null} in it, is filed under "no value",
 *       which {@code keysBy(field, null)} reads. An emptied bucket disappears. Index values are
 *       compared with {@code equals}: index immutable values.
 *   <li>{@link #keysBy} refuses a field that is not indexed. {@link #addIndex} is idempotent and
 *       builds the new index from the rows already there. {@link #reindex} rebuilds every index.
 *   <li>The rows of the three primary registers of a {@link RegisterRegistry} are created and dropped
 *       only by the registry's lifecycle, and their chain fields are written only by it: there,
 *       {@link #create} and {@link #drop} are refused with {@link Reason#CHAIN_MANAGED}, and a chain
 *       field passed to {@link #update} with {@link Reason#CHAIN_FIELD}.
 * </ul>
 *
 * <p>Every refusal is a {@link RegisterException} with a machine-readable reason, and a refused call
 * changed nothing.
 *
 * <h2>Concurrency</h2>
 *
 * <p>Thread-safe. Membership and indexes are guarded by one structure lock (shared by the three
 * primary registers of a registry, so that a lifecycle operation touching several of them is one
 * atomic step). Writes hold it exclusively; each read is one consistent view, read optimistically
 * and read again under the lock shared if a writer overtook it. The structure lock is innermost: it
 * is held only for in-memory bookkeeping, never while running a caller's code or waiting for a row
 * lock, so taking it — while holding row locks or not — always completes. A write to a row's fields
 * takes the row's lock first, then the structure lock.
 *
 * @param <R> the row class of this register
 */
public final class Register<R extends Row> {

  private final String name;
  private final Function<String, ? extends R> rowFactory;
  private final StructureLock structure;
  private final Lock write;
  private final boolean chainManaged;
  // Written under the structure lock; a concurrent map because optimistic readers walk it while a
  // writer may be inside: its bins, trees included, can be walked during a write.
  private final ConcurrentHashMap<String, R> rows = new ConcurrentHashMap<>();
  private volatile Map<String, Index> indexes; // replaced whole, under the structure lock
  private volatile Set<String> indexedFields; // indexes.keySet()

  Register(String name, Function<String, ? extends R> rowFactory, Collection<String> indexedFields,
      StructureLock structure, boolean chainManaged) {
    this.name = Objects.requireNonNull(name, "name");
    this.rowFactory = Objects.requireNonNull(rowFactory, "rowFactory");
    this.structure = structure;
    this.write = structure.write();
    this.chainManaged = chainManaged;
    LinkedHashMap<String, Index> initial = new LinkedHashMap<>();
    for (String field : indexedFields) {
      initial.putIfAbsent(Objects.requireNonNull(field, "indexed field"), new ValueIndex());
    }
    publish(initial);
  }

  /**
   * A stand-alone register of plain {@link Row}s.
   *
   * @param name the register's name, for messages
   * @param indexedFields the fields to index from the start
   */
  public static Register<Row> of(String name, String... indexedFields) {
    return of(name, Row::new, indexedFields);
  }

  /**
   * A stand-alone register whose rows are built by {@code rowFactory}.
   *
   * @param name the register's name, for messages
   * @param rowFactory builds an empty row for a key (for instance {@code MyRow::new}); it must return
   *     a new row carrying that key, and is called on the creating thread with no lock held
   * @param indexedFields the fields to index from the start
   */
  public static <R extends Row> Register<R> of(String name, Function<String, ? extends R> rowFactory,
      String... indexedFields) {
    return new Register<>(name, rowFactory, List.of(indexedFields), new StructureLock(), false);
  }

  /** The register's name. */
  public String name() {
    return name;
  }

  /** The indexed fields, in the order they were indexed (an immutable snapshot). */
  public Set<String> indexedFields() {
    return indexedFields;
  }

  /** How many rows are registered. */
  public int size() {
    return structure.read(rows::size);
  }

  /** Whether a row with {@code key} is registered. */
  public boolean contains(String key) {
    Objects.requireNonNull(key, "key");
    return structure.read(() -> rows.containsKey(key));
  }

  /** The keys of every registered row, as an immutable snapshot of one moment. */
  public Set<String> keys() {
    return structure.read(() -> Set.copyOf(rows.keySet()));
  }

  /** The live row of {@code key}, or nothing. */
  public Optional<R> get(String key) {
    Objects.requireNonNull(key, "key");
    long stamp = structure.optimistic();
    if (stamp != 0L) {
      try {
        R row = rows.get(key);
        if (structure.valid(stamp)) {
          return Optional.ofNullable(row);
        }
      } catch (RuntimeException torn) {
        // overtaken by a writer: read again below
      }
    }
    return Optional.ofNullable(structure.read(() -> rows.get(key)));
  }

  /**
   * Creates a row with no fields of the caller's.
   *
   * @see #create(String, Map)
   */
  public R create(String key) {
    return create(key, Map.of());
  }

  /**
   * Creates the row of {@code key} with {@code fields}, verbatim, after the row class's defaults.
   *
   * @return the new live row
   * @throws RegisterException {@link Reason#DUPLICATE_KEY} when {@code key} is registered,
   *     {@link Reason#RESERVED_FIELD} when {@code fields} holds {@value Row#KEY_FIELD},
   *     {@link Reason#WRONG_TYPE} for a typed field of the wrong type, and
   *     {@link Reason#CHAIN_MANAGED} on a primary register of a registry
   */
  public R create(String key, Map<String, ?> fields) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fields, "fields");
    if (chainManaged) {
      throw chainManaged("create", key);
    }
    R row = build(key, fields);
    write.lock();
    try {
      if (rows.containsKey(key)) {
        throw duplicate(key);
      }
      insertLocked(row);
    } finally {
      write.unlock();
    }
    return row;
  }

  /**
   * Merges {@code fields} into the row of {@code key}: a field present is replaced, a new one is
   * added, the others are kept. Only the indexes of indexed fields whose value changed are touched.
   *
   * @return the live row
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when no such row is registered,
   *     {@link Reason#RESERVED_FIELD} when {@code fields} holds {@value Row#KEY_FIELD},
   *     {@link Reason#CHAIN_FIELD} for a field of the ownership chain, {@link Reason#WRONG_TYPE} for
   *     a typed field of the wrong type
   */
  public R update(String key, Map<String, ?> fields) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fields, "fields");
    R row = get(key).orElseThrow(() -> unknown(key, "update"));
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      refuseCallerField(name, key, row, field.getKey());
      row.check(field.getKey(), field.getValue());
    }
    if (!writeFields(row, fields)) {
      throw unknown(key, "update");
    }
    return row;
  }

  /**
   * Drops the row of {@code key} and returns it; it leaves every index with it.
   *
   * @throws RegisterException {@link Reason#UNKNOWN_KEY} when no such row is registered, and
   *     {@link Reason#CHAIN_MANAGED} on a primary register of a registry
   */
  public R drop(String key) {
    Objects.requireNonNull(key, "key");
    if (chainManaged) {
      throw chainManaged("drop", key);
    }
    write.lock();
    try {
      R row = rows.get(key);
      if (row == null) {
        throw unknown(key, "drop");
      }
      removeLocked(row);
      return row;
    } finally {
      write.unlock();
    }
  }

  /**
   * The keys of the rows whose {@code field} equals {@code value}, as an immutable snapshot;
   * {@code null} selects the rows with no value for it.
   *
   * @throws RegisterException {@link Reason#NOT_INDEXED} when {@code field} is not indexed
   */
  public Set<String> keysBy(String field, Object value) {
    Objects.requireNonNull(field, "field");
    return structure.read(() -> {
      Index index = indexes.get(field);
      if (index == null) {
        throw notIndexed(field);
      }
      return index.keys(value);
    });
  }

  /**
   * Indexes {@code field}, filing every row already registered; does nothing when it is indexed.
   *
   * @throws RegisterException {@link Reason#NOT_INDEXABLE} for a live set of the chain
   *     ({@code connections}, {@code pages}), whose value an index cannot follow
   */
  public void addIndex(String field) {
    Objects.requireNonNull(field, "field");
    if (field.equals(UserRow.CONNECTIONS) || field.equals(ConnectionRow.PAGES)
        || field.equals(Row.KEY_FIELD)) {
      throw new RegisterException(Reason.NOT_INDEXABLE, name, field,
          "register " + name + " cannot index '" + field + "': "
              + (field.equals(Row.KEY_FIELD) ? "it is the key, which the register already maps"
                  : "it is a live set of the ownership chain")
              + "; nothing was changed: index a field holding an immutable value");
    }
    write.lock();
    try {
      if (indexes.containsKey(field)) {
        return;
      }
      Index index = new ValueIndex();
      for (R row : rows.values()) {
        index.add(row.find(field), row.key());
      }
      LinkedHashMap<String, Index> grown = new LinkedHashMap<>(indexes);
      grown.put(field, index);
      publish(grown);
    } finally {
      write.unlock();
    }
  }

  /** Rebuilds every index from the rows. Never needed for correctness; kept for tools and tests. */
  public void reindex() {
    write.lock();
    try {
      for (Map.Entry<String, Index> entry : indexes.entrySet()) {
        Index index = entry.getValue();
        index.clear();
        for (R row : rows.values()) {
          index.add(row.find(entry.getKey()), row.key());
        }
      }
    } finally {
      write.unlock();
    }
  }

  /** The name, the row count and the indexed fields. */
  @Override
  public String toString() {
    return "Register[" + name + ", " + size() + " rows, indexed by " + indexedFields + "]";
  }

  // ---- package-private machinery, for the registry ------------------------------------------

  StructureLock structure() {
    return structure;
  }

  /** Installs an index derived from elsewhere; only while the register is empty and unshared. */
  void deriveIndex(String field, Index index) {
    LinkedHashMap<String, Index> grown = new LinkedHashMap<>(indexes);
    grown.put(field, index);
    publish(grown);
  }

  private void publish(LinkedHashMap<String, Index> next) {
    indexes = Collections.unmodifiableMap(next);
    indexedFields = Collections.unmodifiableSet(new LinkedHashSet<>(next.keySet()));
  }

  /**
   * Builds a row not yet visible to anybody: the factory's row, then {@code managed} (name, value
   * pairs the registry sets itself), then the caller's {@code fields}, then the row class's defaults
   * — each winning over the ones after it. Refuses and checks the caller's fields. No lock held.
   * {@code managed} may end with free slots (null names), which the row then uses: the registry
   * sizes it so that a birth allocates one array of fields. The registry vouches for the types of
   * what it manages; only the caller's fields and the defaults are checked here.
   */
  R build(String key, Map<String, ?> fields, Object... managed) {
    int managedLength = 0;
    while (managedLength < managed.length && managed[managedLength] != null) {
      managedLength += 2;
    }
    R row = rowFactory.apply(key);
    if (row == null || !key.equals(row.key()) || row.state != Row.NEW) {
      throw new IllegalStateException("the row factory of register " + name
          + " must return a new row carrying the key it is given ('" + key + "'), returned "
          + row);
    }
    Map<String, ?> defaults = row.defaultFields();
    int capacity = managedLength + 2 * (fields.size() + defaults.size());
    Object[] pairs = managed.length >= capacity ? managed : Arrays.copyOf(managed, capacity);
    int length = managedLength;
    if (!fields.isEmpty()) {
      for (Map.Entry<String, ?> field : fields.entrySet()) {
        refuseCallerField(name, key, row, field.getKey());
        row.check(field.getKey(), field.getValue());
        length = putIfAbsent(pairs, length, field.getKey(), field.getValue());
      }
    }
    if (!defaults.isEmpty()) {
      for (Map.Entry<String, ?> field : defaults.entrySet()) {
        refuseCallerField(name, key, row, field.getKey());
        row.check(field.getKey(), field.getValue());
        length = putIfAbsent(pairs, length, field.getKey(), field.getValue());
      }
    }
    row.initialise(length == pairs.length ? pairs : Arrays.copyOf(pairs, length));
    return row;
  }

  private static int putIfAbsent(Object[] pairs, int length, String field, Object value) {
    for (int i = 0; i < length; i += 2) {
      if (pairs[i] == field || pairs[i].equals(field)) {
        return length;
      }
    }
    pairs[length] = field;
    pairs[length + 1] = value;
    return length + 2;
  }

  /** The index of {@code field}, or null; for verification. Caller holds the structure lock. */
  Index indexLocked(String field) {
    return indexes.get(field);
  }

  /** The registered rows; for verification and cascades. Caller holds the structure lock. */
  Collection<R> rowsLocked() {
    return rows.values();
  }

  /** The row of {@code key}, or null. Caller holds the structure lock. */
  R rowLocked(String key) {
    return rows.get(key);
  }

  /** Publishes a built row. Caller holds the structure lock exclusively and checked the key. */
  void insertLocked(R row) {
    String key = row.key();
    rows.put(key, row);
    for (Map.Entry<String, Index> entry : indexes.entrySet()) {
      Index index = entry.getValue();
      if (!index.derived()) {
        index.add(row.find(entry.getKey()), key);
      }
    }
    row.enter(this, Row.LIVE);
  }

  /**
   * Publishes a built row unless its key is taken; returns whether it did. Caller holds the
   * structure lock exclusively.
   */
  boolean insertIfAbsentLocked(R row) {
    String key = row.key();
    if (rows.putIfAbsent(key, row) != null) {
      return false;
    }
    for (Map.Entry<String, Index> entry : indexes.entrySet()) {
      Index index = entry.getValue();
      if (!index.derived()) {
        index.add(row.find(entry.getKey()), key);
      }
    }
    row.enter(this, Row.LIVE);
    return true;
  }

  /** Unpublishes a row. Caller holds the structure lock exclusively. */
  void removeLocked(R row) {
    String key = row.key();
    rows.remove(key);
    for (Map.Entry<String, Index> entry : indexes.entrySet()) {
      Index index = entry.getValue();
      if (!index.derived()) {
        index.remove(row.find(entry.getKey()), key);
      }
    }
    row.enter(null, Row.GONE);
  }

  /** Moves a row to a new key. Caller holds the row's lock and the structure lock exclusively. */
  void rekeyLocked(R row, String newKey) {
    String oldKey = row.key();
    rows.remove(oldKey);
    for (Map.Entry<String, Index> entry : indexes.entrySet()) {
      entry.getValue().remove(row.find(entry.getKey()), oldKey);
    }
    row.rekey(newKey);
    rows.put(newKey, row);
    for (Map.Entry<String, Index> entry : indexes.entrySet()) {
      entry.getValue().add(row.find(entry.getKey()), newKey);
    }
  }

  /**
   * Applies changes to a registered row and re-files it in the indexes of the indexed fields that
   * changed. Caller holds the row's lock and the structure lock exclusively; the row is registered
   * here.
   */
  void applyLocked(R row, Map<String, ?> changes) {
    List<Object[]> moves = null;
    for (Map.Entry<String, ?> change : changes.entrySet()) {
      Index index = indexes.get(change.getKey());
      if (index != null) {
        Object before = row.find(change.getKey());
        Object after = change.getValue() == Row.REMOVED ? null : change.getValue();
        if (!Objects.equals(Index.bucketOf(before), Index.bucketOf(after))) {
          if (moves == null) {
            moves = new ArrayList<>(2);
          }
          moves.add(new Object[] {index, before, after});
        }
      }
    }
    row.apply(changes);
    if (moves != null) {
      for (Object[] move : moves) {
        Index index = (Index) move[0];
        index.remove(move[1], row.key());
        index.add(move[2], row.key());
      }
    }
  }

  /**
   * Writes checked fields into a row registered here: the row's lock, then the structure lock —
   * shared when no indexed field is written, exclusive otherwise. Returns false, writing nothing,
   * when the row is no longer registered here.
   */
  boolean writeFields(R row, Map<String, ?> changes) {
    row.lock().lock();
    try {
      boolean exclusive = touchesIndex(changes);
      while (true) {
        Lock lock = exclusive ? write : structure.read();
        lock.lock();
        try {
          if (!exclusive && touchesIndex(changes)) {
            exclusive = true; // an index was added meanwhile: retry exclusively
            continue;
          }
          if (row.register != this) {
            return false;
          }
          if (exclusive) {
            applyLocked(row, changes);
          } else {
            row.apply(changes);
          }
          return true;
        } finally {
          lock.unlock();
        }
      }
    } finally {
      row.lock().unlock();
    }
  }

  /** The path of {@link Row#set} and {@link Row#remove} on a row registered here. */
  @SuppressWarnings("unchecked")
  void writeThroughRow(Row row, String field, Object value) {
    refuseCallerField(name, row.key(), row, field);
    if (value != Row.REMOVED) {
      row.check(field, value);
    }
    Map<String, Object> change = Collections.singletonMap(field, value);
    if (!writeFields((R) row, change)) {
      // Dropped meanwhile: the row is the caller's now, written without any index.
      row.lock().lock();
      try {
        row.apply(change);
      } finally {
        row.lock().unlock();
      }
    }
  }

  private boolean touchesIndex(Map<String, ?> changes) {
    Set<String> indexed = indexedFields;
    if (indexed.isEmpty()) {
      return false;
    }
    for (String field : changes.keySet()) {
      if (indexed.contains(field)) {
        return true;
      }
    }
    return false;
  }

  /** Refuses a field no caller may write: the key, or a field of the chain for this row class. */
  static void refuseCallerField(String register, String key, Row row, String field) {
    Objects.requireNonNull(field, "field name");
    if (field.equals(Row.KEY_FIELD)) {
      throw new RegisterException(Reason.RESERVED_FIELD, register, key,
          "'" + Row.KEY_FIELD + "' is reserved for the key of row '" + key + "'"
              + (register == null ? "" : " of " + register)
              + "; nothing was changed: pass the key apart, and never among the fields");
    }
    if (row.isChainField(field)) {
      throw new RegisterException(Reason.CHAIN_FIELD, register, key,
          "'" + field + "' is a field of the ownership chain of row '" + key + "'"
              + (register == null ? "" : " of " + register)
              + ", written only by the registry's lifecycle; nothing was changed: use the "
              + "registry (newConnection, newPage, changeConnectionUser, drop...) to move the chain");
    }
  }

  RegisterException unknown(String key, String operation) {
    return new RegisterException(Reason.UNKNOWN_KEY, name, key,
        operation + ": register " + name + " has no row '" + key
            + "'; nothing was changed: check the key, or create the row first");
  }

  RegisterException duplicate(String key) {
    return new RegisterException(Reason.DUPLICATE_KEY, name, key,
        "register " + name + " already has a row '" + key
            + "'; nothing was changed: update that row, or drop it first");
  }

  private RegisterException notIndexed(String field) {
    return new RegisterException(Reason.NOT_INDEXED, name, field,
        "register " + name + " does not index '" + field + "' (it indexes " + indexedFields
            + "); nothing was changed: add the index first");
  }

  private RegisterException chainManaged(String operation, String key) {
    return new RegisterException(Reason.CHAIN_MANAGED, name, key,
        operation + " '" + key + "': the rows of " + name + " are created and dropped only by the "
            + "registry's lifecycle, which keeps both directions of the ownership chain; nothing "
            + "was changed: use the registry's new/drop operations");
  }
}
