package dev.cryo.register;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The default live store of a row: a hierarchical, ordered container addressed by dotted paths.
 *
 * <pre>{@code
 * Store store = new Store();
 * store.set("cart.owner", "anna");         // creates the map "cart" on the way
 * store.set("cart.items", List.of("A-1"));
 * store.set("cart.items.1", "B-2");        // one past the end of a list appends
 * store.get("cart.items");                 // ["A-1", "B-2"], an immutable copy
 * store.get("cart.owner");                 // "anna"
 * }</pre>
 *
 * <h2>What it holds</h2>
 *
 * <p>Maps with {@code String} keys (kept in insertion order), lists, strings, booleans, numbers
 * ({@code Byte}, {@code Short}, {@code Integer}, {@code Long}, {@code Float}, {@code Double},
 * {@code BigInteger}, {@code BigDecimal}) and bytes ({@code byte[]}) — nothing else, and never null.
 * This is the shape a codec can carry whole without instantiating arbitrary classes. A map key must
 * be non-empty and must not contain {@code '.'}, so that every value in a store has a path.
 *
 * <h2>Paths</h2>
 *
 * <p>A path is one or more non-empty segments separated by {@code '.'}. At a map, a segment is a key;
 * at a list, it is a decimal index from {@code 0}. The meaning of a segment depends only on the
 * container it meets, so {@code "a.0"} names key {@code "0"} when {@code a} is a map and the first
 * element when {@code a} is a list.
 *
 * <h2>Ownership</h2>
 *
 * <p>The store owns its content. A value is validated and copied in by {@link #set}; a map, list or
 * bytes read by {@link #get} is an immutable deep copy, so nothing outside can change the store
 * except through it, and nothing the store hands out changes afterwards. Reading a scalar costs a
 * walk down the path; reading a container costs a copy of it.
 *
 * <h2>Refusals</h2>
 *
 * <p>A refused operation throws {@link StoreException} with a machine-readable reason and changes
 * nothing: the value is validated before the store is touched, and a walk that creates intermediate
 * maps cannot fail below the first map it creates.
 *
 * <h2>Concurrency</h2>
 *
 * <p>Not thread-safe. A store that belongs to a row is guarded by that row's {@link Row#lock()}:
 * take it around every access, read or write.
 */
public final class Store {

  /** The deepest nesting a value may have, counting the store's own top level as depth one. */
  public static final int MAX_DEPTH = 64;

  private LinkedHashMap<String, Object> root; // created on the first write: an empty store is small

  /** Creates an empty store. */
  public Store() {}

  /**
   * Creates a store holding a deep copy of {@code content}.
   *
   * @throws StoreException when some value or key of {@code content} is not one a store holds
   */
  public static Store copyOf(Map<String, ?> content) {
    Objects.requireNonNull(content, "content");
    Store store = new Store();
    @SuppressWarnings("unchecked")
    LinkedHashMap<String, Object> copied = (LinkedHashMap<String, Object>) copyIn(content, "(top)", 0);
    store.root = copied.isEmpty() ? null : copied;
    return store;
  }

  /**
   * The value at {@code path}, or {@code null} when nothing is there. A map, list or bytes is
   * returned as an immutable deep copy; a string, number or boolean as itself.
   *
   * @throws StoreException when the path is malformed, or goes through a value that is not a map or
   *     a list, or meets a list with a segment that is not an index
   */
  public Object get(String path) {
    String[] segments = parse(path);
    Object node = root;
    for (int i = 0; i < segments.length; i++) {
      node = child(node, segments, i, path);
      if (node == null) {
        return null;
      }
    }
    return copyOut(node);
  }

  /**
   * The value at {@code path} as a {@code type}, or {@code null} when nothing is there. Maps are read
   * as {@code Map}, lists as {@code List}, bytes as {@code byte[]}.
   *
   * @throws StoreException with {@link StoreException.Reason#WRONG_TYPE} when a value of another
   *     type is there, and as {@link #get(String)} does
   */
  public <T> T get(String path, Class<T> type) {
    Objects.requireNonNull(type, "type");
    Object value = get(path);
    if (value == null || type.isInstance(value)) {
      return type.cast(value);
    }
    throw new StoreException(StoreException.Reason.WRONG_TYPE, path, "the value at '" + path
        + "' is a " + describe(value) + ", not a " + type.getSimpleName()
        + "; nothing was changed: read it as " + describe(value));
  }

  /**
   * Whether a value is at {@code path}.
   *
   * @throws StoreException as {@link #get(String)} does
   */
  public boolean contains(String path) {
    String[] segments = parse(path);
    Object node = root;
    for (int i = 0; i < segments.length && node != null; i++) {
      node = child(node, segments, i, path);
    }
    return node != null;
  }

  /**
   * Puts a copy of {@code value} at {@code path}, creating the missing maps on the way, and returns
   * what was there before (as {@link #get(String)} would have), or {@code null}.
   *
   * <p>At a list, the last segment may be one past the end: the value is appended. An intermediate
   * segment one past the end of a list appends a new map and continues into it.
   *
   * @throws StoreException when the value is not one a store holds, the path is malformed, goes
   *     through a scalar, or names a list index past the end; nothing was changed
   */
  public Object set(String path, Object value) {
    String[] segments = parse(path);
    Object copy = copyIn(value, path, segments.length);
    Object node = root == null ? new LinkedHashMap<String, Object>() : root;
    Object top = node;
    for (int i = 0; i < segments.length - 1; i++) {
      Object next = child(node, segments, i, path);
      if (next == null) {
        next = new LinkedHashMap<String, Object>();
        attach(node, segments, i, path, next);
      } else if (!(next instanceof Map) && !(next instanceof List)) {
        throw notAContainer(segments, i + 1, path, next);
      }
      node = next;
    }
    Object previous = attach(node, segments, segments.length - 1, path, copy);
    @SuppressWarnings("unchecked")
    LinkedHashMap<String, Object> published = (LinkedHashMap<String, Object>) top;
    root = published;
    return previous == null ? null : copyOut(previous);
  }

  /**
   * Removes the value at {@code path} and returns it (as {@link #get(String)} would have), or
   * {@code null} when nothing was there. Removing from a list shifts the elements after it.
   *
   * @throws StoreException as {@link #get(String)} does
   */
  public Object remove(String path) {
    String[] segments = parse(path);
    Object node = root;
    for (int i = 0; i < segments.length - 1 && node != null; i++) {
      node = child(node, segments, i, path);
    }
    if (node == null) {
      return null;
    }
    int last = segments.length - 1;
    Object removed;
    if (node instanceof Map<?, ?> map) {
      removed = map.remove(segments[last]);
    } else if (node instanceof List<?> list) {
      int index = index(segments, last, path);
      if (index >= list.size()) {
        return null;
      }
      removed = list.remove(index);
    } else {
      throw notAContainer(segments, last, path, node);
    }
    if (root != null && root.isEmpty()) {
      root = null;
    }
    return removed == null ? null : copyOut(removed);
  }

  /** The top-level keys, in insertion order (a snapshot). */
  public List<String> keys() {
    return root == null ? List.of() : List.copyOf(root.keySet());
  }

  /** Whether the store holds nothing. */
  public boolean isEmpty() {
    return root == null || root.isEmpty();
  }

  /** The whole content as an immutable deep copy, in insertion order. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> toMap() {
    return root == null ? Map.of() : (Map<String, Object>) copyOut(root);
  }

  /** A deep copy of this store, independent of it. */
  public Store copy() {
    Store store = new Store();
    if (root != null) {
      @SuppressWarnings("unchecked")
      LinkedHashMap<String, Object> copied = (LinkedHashMap<String, Object>) copyIn(root, "(top)", 0);
      store.root = copied;
    }
    return store;
  }

  /**
   * Two stores are equal when they hold equal content: the same keys in the same order, equal
   * strings, booleans and numbers (a number equals only a number of its own class, as in Java), and
   * bytes with the same content.
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof Store that && deepEquals(toMapView(), that.toMapView());
  }

  @Override
  public int hashCode() {
    return deepHash(toMapView());
  }

  /** The content, for diagnostics; bytes are shown by length only. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("Store");
    render(toMapView(), out);
    return out.toString();
  }

  private Map<String, Object> toMapView() {
    return root == null ? Map.of() : root;
  }

  // ---- paths ----------------------------------------------------------------------------------

  private static String[] parse(String path) {
    if (path == null || path.isEmpty()) {
      throw new StoreException(StoreException.Reason.MALFORMED_PATH, path,
          "a store path must name at least one segment, got " + (path == null ? "null" : "''")
              + "; nothing was changed: pass a path such as 'a.b.c'");
    }
    int count = 1;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '.') {
        count++;
      }
    }
    String[] segments = new String[count];
    int start = 0;
    for (int s = 0; s < count; s++) {
      int end = path.indexOf('.', start);
      if (end < 0) {
        end = path.length();
      }
      if (end == start) {
        throw new StoreException(StoreException.Reason.MALFORMED_PATH, path,
            "the store path '" + path + "' has an empty segment; nothing was changed: "
                + "separate non-empty segments with single dots");
      }
      segments[s] = path.substring(start, end);
      start = end + 1;
    }
    return segments;
  }

  /** The child of {@code node} named by segment {@code i}, or null; {@code node} may be null. */
  private static Object child(Object node, String[] segments, int i, String path) {
    if (node == null) {
      return null;
    }
    if (node instanceof Map<?, ?> map) {
      return map.get(segments[i]);
    }
    if (node instanceof List<?> list) {
      int index = index(segments, i, path);
      return index < list.size() ? list.get(index) : null;
    }
    throw notAContainer(segments, i, path, node);
  }

  /** Puts {@code value} into {@code node} at segment {@code i}; returns the value it replaced. */
  @SuppressWarnings("unchecked")
  private static Object attach(Object node, String[] segments, int i, String path, Object value) {
    if (node instanceof Map<?, ?> map) {
      return ((Map<String, Object>) map).put(segments[i], value);
    }
    List<Object> list = (List<Object>) node;
    int index = index(segments, i, path);
    if (index < list.size()) {
      return list.set(index, value);
    }
    if (index == list.size()) {
      list.add(value);
      return null;
    }
    throw new StoreException(StoreException.Reason.INDEX_OUT_OF_RANGE, path,
        "'" + prefix(segments, i + 1) + "' is past the end of a list of " + list.size()
            + " elements; nothing was changed: write at most one past the end to append");
  }

  private static int index(String[] segments, int i, String path) {
    String segment = segments[i];
    int value = 0;
    boolean valid = segment.length() <= 9;
    for (int c = 0; valid && c < segment.length(); c++) {
      char ch = segment.charAt(c);
      valid = ch >= '0' && ch <= '9';
      value = value * 10 + (ch - '0');
    }
    if (!valid) {
      throw new StoreException(StoreException.Reason.NOT_AN_INDEX, path,
          "'" + prefix(segments, i) + "' is a list and '" + segment
              + "' is not an index of it; nothing was changed: address list elements by 0, 1, ...");
    }
    return value;
  }

  private static StoreException notAContainer(String[] segments, int i, String path, Object node) {
    return new StoreException(StoreException.Reason.NOT_A_CONTAINER, path,
        "'" + prefix(segments, i) + "' holds a " + describe(node) + ", which has no '" + segments[i]
            + "'; nothing was changed: remove or replace '" + prefix(segments, i) + "' first");
  }

  private static String prefix(String[] segments, int count) {
    return count == 0 ? "(top)" : String.join(".", Arrays.asList(segments).subList(0, count));
  }

  // ---- values ---------------------------------------------------------------------------------

  /** Validates and deep-copies a value coming in; {@code depth} is its nesting level. */
  private static Object copyIn(Object value, String path, int depth) {
    if (depth > MAX_DEPTH) {
      throw new StoreException(StoreException.Reason.TOO_DEEP, path,
          "the value for '" + path + "' nests deeper than " + MAX_DEPTH
              + " levels (does it contain itself?); nothing was changed: flatten it");
    }
    if (value instanceof String || value instanceof Boolean || isNumber(value)) {
      return value;
    }
    if (value instanceof byte[] bytes) {
      return bytes.clone();
    }
    if (value instanceof Map<?, ?> map) {
      LinkedHashMap<String, Object> copy = new LinkedHashMap<>(Math.max(4, map.size() * 2));
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String key) || key.isEmpty() || key.indexOf('.') >= 0) {
          throw new StoreException(StoreException.Reason.INVALID_KEY, path,
              "the value for '" + path + "' has a map key " + quote(entry.getKey())
                  + " that no path could address; nothing was changed: use non-empty string keys "
                  + "without '.'");
        }
        copy.put(key, copyIn(entry.getValue(), path, depth + 1));
      }
      return copy;
    }
    if (value instanceof List<?> list) {
      ArrayList<Object> copy = new ArrayList<>(list.size());
      for (Object element : list) {
        copy.add(copyIn(element, path, depth + 1));
      }
      return copy;
    }
    throw new StoreException(StoreException.Reason.UNSUPPORTED_VALUE, path,
        "a store holds maps, lists, strings, numbers, booleans and bytes, and the value for '"
            + path + "' is or contains " + (value == null ? "null" : "a " + value.getClass().getName())
            + "; nothing was changed: convert it, or use remove to clear a path");
  }

  private static boolean isNumber(Object value) {
    if (value == null) {
      return false;
    }
    Class<?> type = value.getClass();
    return type == Integer.class || type == Long.class || type == Double.class
        || type == Float.class || type == Short.class || type == Byte.class
        || type == BigInteger.class || type == BigDecimal.class;
  }

  /** An immutable deep copy of a stored value going out. */
  private static Object copyOut(Object value) {
    if (value instanceof byte[] bytes) {
      return bytes.clone();
    }
    if (value instanceof Map<?, ?> map) {
      LinkedHashMap<String, Object> copy = new LinkedHashMap<>(Math.max(4, map.size() * 2));
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        copy.put((String) entry.getKey(), copyOut(entry.getValue()));
      }
      return Collections.unmodifiableMap(copy);
    }
    if (value instanceof List<?> list) {
      Object[] copy = new Object[list.size()];
      for (int i = 0; i < copy.length; i++) {
        copy[i] = copyOut(list.get(i));
      }
      return List.of(copy);
    }
    return value;
  }

  private static boolean deepEquals(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      var left = x.entrySet().iterator();
      var right = y.entrySet().iterator();
      while (left.hasNext()) {
        var l = left.next();
        var r = right.next();
        if (!l.getKey().equals(r.getKey()) || !deepEquals(l.getValue(), r.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!deepEquals(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static int deepHash(Object value) {
    if (value instanceof byte[] bytes) {
      return Arrays.hashCode(bytes);
    }
    if (value instanceof Map<?, ?> map) {
      int hash = 1;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        hash = 31 * hash + (entry.getKey().hashCode() ^ deepHash(entry.getValue()));
      }
      return hash;
    }
    if (value instanceof List<?> list) {
      int hash = 7;
      for (Object element : list) {
        hash = 31 * hash + deepHash(element);
      }
      return hash;
    }
    return value.hashCode();
  }

  private static void render(Object value, StringBuilder out) {
    if (value instanceof byte[] bytes) {
      out.append("bytes[").append(bytes.length).append(']');
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      String separator = "";
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        out.append(separator).append(entry.getKey()).append('=');
        render(entry.getValue(), out);
        separator = ", ";
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      String separator = "";
      for (Object element : list) {
        out.append(separator);
        render(element, out);
        separator = ", ";
      }
      out.append(']');
    } else if (value instanceof String text) {
      out.append('"').append(text).append('"');
    } else {
      out.append(value);
    }
  }

  private static String describe(Object value) {
    if (value instanceof Map) {
      return "map";
    }
    if (value instanceof List) {
      return "list";
    }
    if (value instanceof byte[]) {
      return "byte[]";
    }
    return value.getClass().getSimpleName();
  }

  private static String quote(Object key) {
    return key instanceof String text ? "'" + text + "'" : String.valueOf(key);
  }
}
