package dev.cryo.register;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * An index kept by its register: field value to the keys of the rows holding it. A bucket is a bare
 * key while it holds one and a {@link KeySet} from two on; an emptied bucket is removed. A row that
 * lacks the field, or holds {@code null} in it, is filed under "no value".
 *
 * <p>Written under the structure lock of its register, read optimistically: the buckets live in a
 * concurrent map, which a reader may walk during a write.
 */
final class ValueIndex extends Index {

  // A concurrent map: optimistic readers walk it while the writer may be inside it
  // (see StructureLock).
  private final ConcurrentHashMap<Object, Object> buckets = new ConcurrentHashMap<>();

  @Override
  void add(Object value, String key) {
    Object bucketKey = bucketOf(value);
    Object bucket = buckets.putIfAbsent(bucketKey, key);
    if (bucket instanceof KeySet keys) {
      keys.addNew(key);
    } else if (bucket != null) {
      buckets.put(bucketKey, new KeySet((String) bucket, key));
    }
  }

  @Override
  void remove(Object value, String key) {
    Object bucketKey = bucketOf(value);
    Object bucket = buckets.get(bucketKey);
    if (bucket instanceof KeySet keys) {
      keys.remove(key);
      if (keys.size() == 1) {
        buckets.put(bucketKey, keys.single());
      } else if (keys.isEmpty()) {
        buckets.remove(bucketKey);
      }
    } else if (bucket != null && bucket.equals(key)) {
      buckets.remove(bucketKey);
    }
  }

  @Override
  Set<String> keys(Object value) {
    Object bucket = buckets.get(bucketOf(value));
    if (bucket == null) {
      return Set.of();
    }
    if (bucket instanceof KeySet keys) {
      return keys.snapshot();
    }
    return Set.of((String) bucket);
  }

  @Override
  boolean contains(Object value, String key) {
    Object bucket = buckets.get(bucketOf(value));
    return bucket instanceof KeySet keys ? keys.contains(key) : bucket != null && bucket.equals(key);
  }

  @Override
  void clear() {
    buckets.clear();
  }

  @Override
  void forEachEntry(BiConsumer<Object, String> action) {
    for (Map.Entry<Object, Object> entry : buckets.entrySet()) {
      Object value = entry.getKey() == NO_VALUE ? null : entry.getKey();
      if (entry.getValue() instanceof KeySet keys) {
        keys.forEach(key -> action.accept(value, key));
      } else {
        action.accept(value, (String) entry.getValue());
      }
    }
  }

  @Override
  int bucketCount() {
    return buckets.size();
  }
}
