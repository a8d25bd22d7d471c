package dev.cryo.app;

import java.util.Objects;
import java.util.function.UnaryOperator;

/** A {@link State} over a host's plain data: one key of one scope. */
final class TypedState<T> implements State<T> {

  private final StateHost host;
  private final Scope scope;
  private final String pageId;
  private final String key;
  private final Class<T> type;

  TypedState(StateHost host, Scope scope, String pageId, String key, Class<T> type) {
    this.host = host;
    this.scope = scope;
    this.pageId = pageId;
    this.key = key;
    this.type = type;
  }

  @Override
  public T get() {
    Object plain = host.read(scope, pageId, key);
    return plain == null ? PlainData.defaultOf(type) : PlainData.read(plain, type);
  }

  @Override
  public void set(T value) {
    Objects.requireNonNull(value, () -> "a state is never null; clear() removes " + key);
    host.write(scope, pageId, key, PlainData.write(value, type));
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
    return host.read(scope, pageId, key) != null;
  }

  @Override
  public void clear() {
    host.write(scope, pageId, key, null);
  }

  @Override
  public String toString() {
    return "State " + key + " of " + (scope == Scope.PAGE ? "page " + pageId : scope.name()
        .toLowerCase(java.util.Locale.ROOT));
  }
}
