package dev.cryo.register;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A set of keys that stays small while it is small: up to {@link #SMALL} keys in a packed array
 * searched linearly, then a hash set. Index buckets and the downward edges of the chain are mostly a
 * handful of keys each; at a million pages the packed form saves the bulk of a hash set per bucket.
 *
 * <p>Written under the structure lock of the register that owns it, and read optimistically: a
 * walk over a torn view ends (the packed form is an array, bounded by its length; the large form a
 * concurrent set, which may be walked during a write), and what it read is discarded unless the
 * reader's stamp is still valid.
 */
final class KeySet {

  static final int SMALL = 8;

  private String[] small; // the first size slots are the keys, when large == null
  private int size;
  private Set<String> large; // a concurrent set: readers walk it optimistically, during writes

  KeySet() {}

  KeySet(String first, String second) {
    small = new String[] {first, second, null, null};
    size = 2;
  }

  int size() {
    return large != null ? large.size() : size;
  }

  boolean isEmpty() {
    return size() == 0;
  }

  boolean contains(String key) {
    if (large != null) {
      return large.contains(key);
    }
    return indexOf(key) >= 0;
  }

  /** Adds a key the caller knows is absent, without looking for it first. */
  void addNew(String key) {
    if (large != null) {
      large.add(key);
      return;
    }
    if (size == SMALL) {
      Set<String> grown = ConcurrentHashMap.newKeySet(SMALL * 4);
      grown.addAll(Arrays.asList(small));
      large = grown;
      small = null;
      size = 0;
      large.add(key);
      return;
    }
    if (small == null) {
      small = new String[2];
    } else if (size == small.length) {
      small = Arrays.copyOf(small, Math.min(SMALL, size * 2));
    }
    small[size++] = key;
  }

  boolean remove(String key) {
    if (large != null) {
      return large.remove(key);
    }
    int at = indexOf(key);
    if (at < 0) {
      return false;
    }
    small[at] = small[--size];
    small[size] = null;
    return true;
  }

  /** The only key left, when exactly one is; used to shrink an index bucket back to a bare key. */
  String single() {
    if (size() != 1) {
      throw new IllegalStateException("not a single key: " + size());
    }
    return large != null ? large.iterator().next() : small[0];
  }

  void clear() {
    small = null;
    large = null;
    size = 0;
  }

  void forEach(Consumer<String> action) {
    if (large != null) {
      large.forEach(action);
    } else {
      for (int i = 0; i < size; i++) {
        action.accept(small[i]);
      }
    }
  }

  String[] toArray() {
    if (large != null) {
      return large.toArray(new String[0]);
    }
    return small == null ? new String[0] : Arrays.copyOf(small, size);
  }

  /** An immutable copy. */
  Set<String> snapshot() {
    return Set.of(toArray());
  }

  private int indexOf(String key) {
    String[] keys = small;
    for (int i = 0; i < size; i++) {
      String candidate = keys[i];
      if (candidate == key || candidate.equals(key)) {
        return i;
      }
    }
    return -1;
  }
}
