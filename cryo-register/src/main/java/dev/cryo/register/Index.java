package dev.cryo.register;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * One secondary index of a register: field value to the keys of the rows holding it. A bucket is a
 * bare key while it holds one and a {@link KeySet} from two on; an emptied bucket is removed. A row
 * that lacks the field, or holds {@code null} in it, is filed under "no value".
 *
 * <p>Not thread-safe: guarded by the structure lock of its register.
 */
final class Index {

  /** The bucket of the rows without a value for the field; a value no caller can pass. */
  static final Object NO_VALUE = new Object() {
    @Override
    public String toString() {
      return "(no value)";
    }
  };

  private final HashMap<Object, Object> buckets = new HashMap<>();

  static Object bucketOf(Object value) {
    return value == null ? NO_VALUE : value;
  }

  void add(Object value, String key) {
    Object bucketKey = bucketOf(value);
    Object bucket = buckets.get(bucketKey);
    if (bucket == null) {
      buckets.put(bucketKey, key);
    } else if (bucket instanceof KeySet keys) {
      keys.add(key);
    } else if (!bucket.equals(key)) {
      buckets.put(bucketKey, new KeySet((String) bucket, key));
    }
  }

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

  boolean contains(Object value, String key) {
    Object bucket = buckets.get(bucketOf(value));
    return bucket instanceof KeySet keys ? keys.contains(key) : bucket != null && bucket.equals(key);
  }

  void clear() {
    buckets.clear();
  }

  /** Every (value, key) pair, for verification; "no value" is reported as {@code null}. */
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

  /** How many distinct values have a bucket. */
  int bucketCount() {
    return buckets.size();
  }
}
