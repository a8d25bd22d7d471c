package dev.cryo.register;

import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The index of a child register on its parent key, derived from the parents' downward sets: the
 * keys filed under a value are the set carried by the parent row of that key. The registry's
 * lifecycle keeps those sets; filing and unfiling here do nothing, and a rebuild has nothing to do.
 *
 * <p>Guarded, like the sets it reads, by the structure lock shared by both registers.
 */
final class EdgeIndex extends Index {

  private final Register<? extends Row> parents;
  private final Function<Row, KeySet> edge;

  EdgeIndex(Register<? extends Row> parents, Function<Row, KeySet> edge) {
    this.parents = parents;
    this.edge = edge;
  }

  @Override
  boolean derived() {
    return true;
  }

  @Override
  void add(Object value, String key) {}

  @Override
  void remove(Object value, String key) {}

  @Override
  Set<String> keys(Object value) {
    Row parent = value instanceof String parentKey ? parents.rowLocked(parentKey) : null;
    return parent == null ? Set.of() : edge.apply(parent).snapshot();
  }

  @Override
  boolean contains(Object value, String key) {
    Row parent = value instanceof String parentKey ? parents.rowLocked(parentKey) : null;
    return parent != null && edge.apply(parent).contains(key);
  }

  @Override
  void clear() {}

  @Override
  void forEachEntry(BiConsumer<Object, String> action) {
    for (Row parent : parents.rowsLocked()) {
      edge.apply(parent).forEach(key -> action.accept(parent.key(), key));
    }
  }

  @Override
  int bucketCount() {
    int count = 0;
    for (Row parent : parents.rowsLocked()) {
      count += edge.apply(parent).isEmpty() ? 0 : 1;
    }
    return count;
  }
}
