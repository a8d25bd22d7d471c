package dev.cryo.register;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One row of a {@link Register}: a key, the fields a caller gave it, and its own re-entrant lock.
 *
 * <h2>Fields</h2>
 *
 * <p>A row keeps every field a caller passes, verbatim and uninterpreted: a downstream layer can put
 * its own data on a row without the core learning about it. Values may be of any type, {@code null}
 * included; a field holding {@code null} is present ({@link #has}) while a missing one is not. The
 * subclasses of the chain ({@link UserRow}, {@link ConnectionRow}, {@link PageRow}) add typed access
 * to the few fields the core gives meaning to, and refuse values of the wrong type for them.
 *
 * <p>A consumer pairs its own fields with a row by subclassing it (or one of the chain's rows),
 * adding typed accessors over its own fields and, if it wants, defaults ({@link #defaultFields()}),
 * and hands the register a factory for it ({@link Register#of(String, java.util.function.Function,
 * String...)}, or the row factories of {@link RegisterRegistry}).
 *
 * <h2>Indexed fields stay indexed</h2>
 *
 * <p>Every write to a registered row — {@link #set}, {@link #remove}, {@link Register#update} — goes
 * through its register, which re-files the row in the index of every indexed field that changed, in
 * the same gesture. No write can leave an index stale: there is no way to change a field in place.
 *
 * <h2>Concurrency</h2>
 *
 * <p>Each read and each write of a field is atomic and may happen on any thread: a row's fields are
 * an immutable snapshot, replaced whole by every write, and writes are serialised by the row's
 * {@link #lock()}. A sequence of accesses that must not be interleaved with another thread's — and
 * every access to the row's store — holds {@link #lock()} around it: one access at a time per row,
 * rows in parallel. See the package documentation for the order in which locks may be nested.
 */
public class Row {

  /**
   * The name under which a row's key appears among its fields. It is reserved: a caller never passes
   * it, and a key never changes through a field write.
   */
  public static final String KEY_FIELD = "register_item_id";

  static final int NEW = 0;
  static final int LIVE = 1;
  static final int LEAVING = 2;
  static final int GONE = 3;

  /** Returned by {@link #chainValue} for a field that is not a live set of the chain. */
  static final Object NOT_A_CHAIN_SET = new Object();

  /** Marks a field to remove in a change map. */
  static final Object REMOVED = new Object();

  private static final Object[] NO_FIELDS = {};

  private static final VarHandle LOCK;
  private static final VarHandle FIELDS;
  private static final VarHandle REGISTER;
  private static final VarHandle STATE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      LOCK = lookup.findVarHandle(Row.class, "lock", ReentrantLock.class);
      FIELDS = lookup.findVarHandle(Row.class, "fields", Object[].class);
      REGISTER = lookup.findVarHandle(Row.class, "register", Register.class);
      STATE = lookup.findVarHandle(Row.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile String key;
  private volatile ReentrantLock lock; // made on first use: a row never locked costs no lock
  // Read as volatile (a plain load on common hardware); written with release semantics, which is
  // all a reader needs to see a whole snapshot, without the full fence of a volatile write.
  private volatile Object[] fields = NO_FIELDS; // name, value, name, value ...; never mutated
  volatile Register<?> register; // the register holding this row, while it is held
  volatile int state = NEW;

  /**
   * Creates an unregistered row. Only a register's row factory calls this; the register fills the
   * fields and publishes the row.
   *
   * @param key the row's key, as given to the factory
   */
  protected Row(String key) {
    this.key = Objects.requireNonNull(key, "key");
  }

  /**
   * The row's key. It never changes, with one exception: the entry of a guest user that logs in
   * for the first time is transferred onto the new identity's key (see
   * {@link RegisterRegistry#changeConnectionUser}).
   */
  public final String key() {
    return key;
  }

  /**
   * The row's own exclusive, re-entrant lock: take it around a sequence of accesses to the row and
   * around every access to its store. Always the same lock for a row; it is made on the first call,
   * so a row nobody ever locks carries none.
   *
   * <p>The lock of a user, connection or page row enforces the package's lock order: a waiting
   * {@code lock()} by a thread that holds another row of the same level or of a level above (rows
   * lock upwards: page, connection, user) is refused with
   * {@link RegisterException.Reason#LOCK_ORDER} before it waits. {@code tryLock} is never refused.
   */
  public final ReentrantLock lock() {
    ReentrantLock current = lock;
    if (current == null) {
      int rank = lockRank();
      ReentrantLock fresh = rank < 0 ? new ReentrantLock() : new RowLock(this, rank);
      current = (ReentrantLock) LOCK.compareAndExchange(this, null, fresh);
      if (current == null) {
        current = fresh;
      }
    }
    return current;
  }

  /**
   * The value of {@code field}, or {@code null} when the row has no such field. {@value #KEY_FIELD}
   * reads the key; a downward edge of the chain ({@code connections}, {@code pages}) reads as an
   * immutable snapshot of the set.
   */
  public final Object get(String field) {
    Objects.requireNonNull(field, "field");
    if (field.equals(KEY_FIELD)) {
      return key;
    }
    Object chain = chainValue(field);
    if (chain != NOT_A_CHAIN_SET) {
      return chain;
    }
    return find(field);
  }

  /**
   * The value of {@code field} as a {@code type}, or {@code null} when absent or null.
   *
   * @throws RegisterException with {@link RegisterException.Reason#WRONG_TYPE} when the field holds
   *     a value of another type
   */
  public final <T> T get(String field, Class<T> type) {
    Object value = get(field);
    if (value == null || type.isInstance(value)) {
      return type.cast(value);
    }
    throw new RegisterException(RegisterException.Reason.WRONG_TYPE, registerName(), key,
        "field '" + field + "' of row '" + key + "' holds a " + value.getClass().getName()
            + ", not a " + type.getName() + "; nothing was changed: read it as what it is");
  }

  /** Whether the row has {@code field}, even holding {@code null}. */
  public final boolean has(String field) {
    if (field.equals(KEY_FIELD) || chainValue(field) != NOT_A_CHAIN_SET) {
      return true;
    }
    return slot(fields, field) >= 0;
  }

  /**
   * Every field, as an immutable snapshot in the order the fields were first written, starting with
   * {@value #KEY_FIELD}. Sets of the chain appear as snapshots.
   */
  public final Map<String, Object> fields() {
    Object[] snapshot = fields;
    LinkedHashMap<String, Object> out = new LinkedHashMap<>(snapshot.length + 8);
    out.put(KEY_FIELD, key);
    for (int i = 0; i < snapshot.length; i += 2) {
      out.put((String) snapshot[i], snapshot[i + 1]);
    }
    addChainValues(out);
    return Collections.unmodifiableMap(out);
  }

  /**
   * Writes {@code field}. While the row is registered, the write goes through its register, which
   * refuses what the register refuses ({@value #KEY_FIELD}, a field of the ownership chain, a value
   * of the wrong type for a typed field) and re-files the row in the index of {@code field} when it
   * is indexed. Takes {@link #lock()} for the duration of the write, so a thread holding a row of
   * the chain may write only its own row and the rows above it: see {@link #lock()}.
   *
   * @throws RegisterException when the write is refused,
   *     {@link RegisterException.Reason#LOCK_ORDER} when taking the row's lock would break the lock order; the row is then unchanged
   */
  public final void set(String field, Object value) {
    write(field, value);
  }

  /**
   * Removes {@code field}, under the same rules as {@link #set}; an indexed field's row moves to the
   * "no value" bucket. Removing a field the row does not have does nothing.
   *
   * @throws RegisterException when the field may not be written by a caller
   */
  public final void remove(String field) {
    write(field, REMOVED);
  }

  /** Whether the row is held by a register (a dropped row, or one not yet created, is not). */
  public final boolean isRegistered() {
    int current = state;
    return current == LIVE || current == LEAVING;
  }

  /**
   * The fields every row of this class is born with, before the caller's own (a field the caller
   * passes wins over a default). Called once per row, at its birth, on the creating thread, before
   * the row is visible to anybody. The default is none.
   */
  protected Map<String, ?> defaultFields() {
    return Map.of();
  }

  /** The class name, the key and the field names: never the values, which may be large or private. */
  @Override
  public String toString() {
    Object[] snapshot = fields;
    StringBuilder out = new StringBuilder(getClass().getSimpleName()).append('[').append(key);
    for (int i = 0; i < snapshot.length; i += 2) {
      out.append(i == 0 ? ": " : ", ").append(snapshot[i]);
    }
    return out.append(']').toString();
  }

  // ---- package-private machinery -----------------------------------------------------------

  /** The value of an ordinary field (not the key, not a chain set), or null. Lock-free. */
  final Object find(String field) {
    Object[] snapshot = fields;
    int at = slot(snapshot, field);
    return at < 0 ? null : snapshot[at + 1];
  }

  /**
   * The rank of this row's lock in the lock order ({@link RowLock#PAGE}, {@link RowLock#CONNECTION},
   * {@link RowLock#USER}), or -1 for a row outside the chain, whose lock has no rank.
   */
  int lockRank() {
    return -1;
  }

  /** A chain set's snapshot for {@code field}, or {@link #NOT_A_CHAIN_SET}. */
  Object chainValue(String field) {
    return NOT_A_CHAIN_SET;
  }

  /** Adds the chain sets' snapshots to a field map. */
  void addChainValues(Map<String, Object> out) {}

  /** The names of the fields only the registry writes, for the rows of this class. */
  boolean isChainField(String field) {
    return false;
  }

  /**
   * Refuses a value of the wrong type for a field the core gives meaning to.
   *
   * @throws RegisterException with {@link RegisterException.Reason#WRONG_TYPE}
   */
  void check(String field, Object value) {}

  /** Applies changes (a {@link #REMOVED} value removes). Caller holds {@link #lock()}. */
  final void apply(Map<String, ?> changes) {
    Object[] current = fields;
    Object[] next = new Object[current.length + changes.size() * 2];
    System.arraycopy(current, 0, next, 0, current.length);
    int length = current.length;
    boolean removed = false;
    for (Map.Entry<String, ?> change : changes.entrySet()) {
      int at = slot(next, length, change.getKey());
      if (at >= 0) {
        next[at + 1] = change.getValue();
        removed |= change.getValue() == REMOVED;
      } else if (change.getValue() != REMOVED) {
        next[length++] = change.getKey();
        next[length++] = change.getValue();
      }
    }
    if (removed) {
      int kept = 0;
      for (int i = 0; i < length; i += 2) {
        if (next[i + 1] != REMOVED) {
          next[kept++] = next[i];
          next[kept++] = next[i + 1];
        }
      }
      length = kept;
    }
    FIELDS.setRelease(this, length == next.length ? next : java.util.Arrays.copyOf(next, length));
    cache();
  }

  /** Sets the fields of a row not yet visible to anybody, from pairs. */
  final void initialise(Object[] pairs) {
    FIELDS.set(this, pairs); // nobody else sees the row yet: its publication orders this write
    cache();
  }

  /** Publishes membership: the register holding the row (or null) and its state. */
  final void enter(Register<?> owner, int newState) {
    REGISTER.setRelease(this, owner);
    STATE.setRelease(this, newState);
  }

  /** Publishes a new state (under the structure lock). */
  final void mark(int newState) {
    STATE.setRelease(this, newState);
  }

  /**
   * Called after every write of the fields, by the writer: a row of the chain copies the field its
   * hot paths read into a plain Java field, one pointer closer than the field array.
   */
  void cache() {}

  final void rekey(String newKey) {
    key = newKey;
  }

  final String registerName() {
    Register<?> owner = register;
    return owner == null ? null : owner.name();
  }

  private void write(String field, Object value) {
    Objects.requireNonNull(field, "field");
    Register<?> owner = register;
    if (owner != null) {
      owner.writeThroughRow(this, field, value);
      return;
    }
    Register.refuseCallerField(null, key, this, field);
    if (value != REMOVED) {
      check(field, value);
    }
    ReentrantLock own = lock();
    own.lock();
    try {
      apply(Collections.singletonMap(field, value));
    } finally {
      own.unlock();
    }
  }

  private static int slot(Object[] pairs, String field) {
    return slot(pairs, pairs.length, field);
  }

  private static int slot(Object[] pairs, int length, String field) {
    for (int i = 0; i < length; i += 2) {
      Object name = pairs[i];
      if (name == field || name.equals(field)) {
        return i;
      }
    }
    return -1;
  }
}
