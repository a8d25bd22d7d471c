package dev.cryo.register;

import java.util.Set;
import java.util.function.BiConsumer;

/**
 * One secondary index of a register: field value to the keys of the rows holding it. Either kept by
 * the register itself ({@link ValueIndex}), or derived from an edge of the ownership chain
 * ({@link EdgeIndex}): the pages filed under a connection id are that connection's own set of
 * pages, one structure seen two ways, which therefore cannot disagree.
 *
 * <p>Not thread-safe: written under the structure lock of its register, read optimistically.
 */
abstract class Index {

  /** The bucket of the rows without a value for the field; a value no caller can pass. */
  static final Object NO_VALUE = new Object() {
    @Override
    public String toString() {
      return "(no value)";
    }
  };

  static Object bucketOf(Object value) {
    return value == null ? NO_VALUE : value;
  }

  /** Whether the index is derived from elsewhere, and filing and unfiling do nothing. */
  boolean derived() {
    return false;
  }

  /** Files {@code key} under {@code value}; the key is not filed in this index yet. */
  abstract void add(Object value, String key);

  /** Unfiles {@code key} from under {@code value}; an emptied bucket goes. */
  abstract void remove(Object value, String key);

  /** The keys filed under {@code value}, as an immutable snapshot. */
  abstract Set<String> keys(Object value);

  /** Whether {@code key} is filed under {@code value}. */
  abstract boolean contains(Object value, String key);

  /** Unfiles everything (before a rebuild). */
  abstract void clear();

  /** Every (value, key) pair, for verification; "no value" is reported as {@code null}. */
  abstract void forEachEntry(BiConsumer<Object, String> action);

  /** How many distinct values have a non-empty bucket. */
  abstract int bucketCount();
}
