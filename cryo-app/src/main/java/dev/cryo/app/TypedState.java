package dev.cryo.app;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A {@link State} over a host's plain data: one key of one scope.
 *
 * <p>A class stored under its simple name (no {@link StateKey}) is recorded beside its value, under
 * {@code key + }{@value #WRITER_SUFFIX}, by its binary name; a state of another class of the same
 * simple name — which one instance of the application cannot tell from it once the user was
 * frozen and woken elsewhere — is refused ({@link StateException.Reason#BAD_STATE_CLASS}) instead
 * of reading that value as its own or writing over it. A class with a {@link StateKey} names its
 * storage itself (a renamed class keeps it), and is not recorded.
 */
final class TypedState<T> implements State<T> {

  /** What follows a key to name the entry recording the class that wrote it. */
  static final String WRITER_SUFFIX = "@class";

  private final StateHost host;
  private final Scope scope;
  private final String pageId;
  private final String key;
  private final Class<T> type;
  /** The binary name recorded beside the value; null for a class with a {@link StateKey}. */
  private final String writer;

  TypedState(StateHost host, Scope scope, String pageId, String key, Class<T> type) {
    this.host = host;
    this.scope = scope;
    this.pageId = pageId;
    this.key = key;
    this.type = type;
    this.writer = type.isAnnotationPresent(StateKey.class) ? null : type.getName();
  }

  /** Whether {@code storeKey} is an entry recording a writer, not a state. */
  static boolean isWriterEntry(String storeKey) {
    return storeKey.endsWith(WRITER_SUFFIX);
  }

  /**
   * Refuses a class other than the one that wrote the value, when the class is stored under its
   * simple name.
   */
  private void checkWriter() {
    if (writer == null) {
      return;
    }
    Object recorded = host.read(scope, pageId, key + WRITER_SUFFIX);
    if (recorded != null && !writer.equals(recorded)) {
      throw new StateException(StateException.Reason.BAD_STATE_CLASS, key, "state '" + key
          + "' of this " + (scope == Scope.PAGE ? "page" : scope.name().toLowerCase(
              java.util.Locale.ROOT)) + " was written by class " + recorded + ", and is asked for"
          + " as class " + writer + ": two state classes share the storage name '" + key + "'"
          + " (their simple name); nothing was read or written: give each a @StateKey of its own"
          + " (a class moved to another package keeps its state with @StateKey(\"" + key
          + "\"))");
    }
  }

  @Override
  public T get() {
    checkWriter();
    Object plain = host.read(scope, pageId, key);
    return plain == null ? PlainData.defaultOf(type) : PlainData.readStored(plain, type, key);
  }

  @Override
  public void set(T value) {
    Objects.requireNonNull(value, () -> "a state is never null; clear() removes " + key);
    Object plain = PlainData.write(value, type);
    checkWriter();
    host.write(scope, pageId, key, plain);
    if (writer != null) {
      host.write(scope, pageId, key + WRITER_SUFFIX, writer);
    }
  }

  @Override
  public T update(UnaryOperator<T> change) {
    T next = change.apply(get());
    if (next == null) {
      throw new NullPointerException("the change of state " + key + " returned null; nothing was"
          + " written: return the new state, or call clear()");
    }
    set(next);
    return next;
  }

  @Override
  public boolean isPresent() {
    checkWriter();
    return host.read(scope, pageId, key) != null;
  }

  @Override
  public void clear() {
    checkWriter();
    host.write(scope, pageId, key, null);
    if (writer != null) {
      host.write(scope, pageId, key + WRITER_SUFFIX, null);
    }
  }

  @Override
  public String toString() {
    return "State " + key + " of " + (scope == Scope.PAGE ? "page " + pageId : scope.name()
        .toLowerCase(java.util.Locale.ROOT));
  }
}
