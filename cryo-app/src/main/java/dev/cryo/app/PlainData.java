package dev.cryo.app;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Typed state to plain data and back, through Jackson.
 *
 * <p>Plain data is what the freezer carries and the worker's store holds: maps with non-empty
 * string keys free of {@code '.'}, lists, strings, numbers, booleans and {@code byte[]}, never null,
 * at most {@link #MAX_DEPTH} levels deep. Writing a value walks it through Jackson into a guarded
 * buffer that refuses what cannot be frozen — a JDK object that is not a value (a thread, a socket),
 * a lambda, an anonymous class, a cycle, too deep a nesting — naming the field; then reads the
 * result back into the class and writes that again, and refuses the value unless both agree, so
 * what is written is what a freeze would bring back. Map keys are escaped ({@code '%'} as
 * {@code %25}, {@code '.'} as {@code %2E}, the empty key as {@code %}) and unescaped on reading.
 * Nulls in objects and maps are dropped; a null in a list is refused. Thread-safe.
 */
final class PlainData {

  /** How deep a state may nest (the worker's store allows a little more, for its own keys). */
  static final int MAX_DEPTH = 48;

  private static final ObjectMapper MAPPER = state(new ObjectMapper());

  /** As {@link #MAPPER}, telling {@link IgnoredStateFields} of each stored field it ignores. */
  private static final ObjectMapper STORED = state(new ObjectMapper())
      .addHandler(new DeserializationProblemHandler() {
        @Override
        public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser,
            JsonDeserializer<?> deserializer, Object beanOrClass, String property)
            throws IOException {
          Class<?> owner = beanOrClass instanceof Class<?> type ? type : beanOrClass.getClass();
          if (!WRITTEN.get(owner).contains(property)) { // else the class's own, written only
            IgnoredStateFields.ignored(owner, property, READING.get());
          }
          parser.skipChildren();
          return true; // ignored, as every unknown field is; told once
        }
      });

  /**
   * The properties Jackson writes for a class — a computed getter's among them, which it writes
   * and never reads: a stored field of that name is the class's own, not a lost one.
   */
  private static final ClassValue<Set<String>> WRITTEN = new ClassValue<>() {
    @Override
    protected Set<String> computeValue(Class<?> type) {
      return MAPPER.getSerializationConfig().introspect(MAPPER.constructType(type))
          .findProperties().stream().filter(property -> property.couldSerialize())
          .map(property -> property.getName()).collect(java.util.stream.Collectors.toSet());
    }
  };

  /** The storage name of the state {@link #readStored} reads on this thread, for the warning. */
  private static final ThreadLocal<String> READING = new ThreadLocal<>();

  private PlainData() {}

  private static ObjectMapper state(ObjectMapper mapper) {
    Json.configure(mapper);
    JsonSetter.Value empty = JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY);
    for (Class<?> container : List.of(Collection.class, List.class, Set.class, SortedSet.class,
        NavigableSet.class, Map.class, SortedMap.class, NavigableMap.class)) {
      mapper.configOverride(container).setSetterInfo(empty); // missing containers read as empty
    }
    return mapper;
  }

  // ---- writing --------------------------------------------------------------------------------

  /**
   * {@code value} as plain data, checked to come back as written when read into {@code type}.
   *
   * @throws StateException {@link StateException.Reason#NOT_FREEZABLE}, naming the field
   */
  static Object write(Object value, Class<?> type) {
    String root = type.getSimpleName();
    Object plain = toPlain(value, root);
    Object again;
    try {
      again = toPlain(read(plain, type), root);
    } catch (StateException e) {
      throw new StateException(StateException.Reason.NOT_FREEZABLE, e.field(), "state " + root
          + " can be written but not read back, so it would not survive a freeze: "
          + e.getMessage(), e);
    }
    String difference = difference(plain, again, root);
    if (difference != null) {
      throw new StateException(StateException.Reason.NOT_FREEZABLE, difference, "state " + root
          + " does not come back as it was written: " + difference + " differs once read back"
          + " (Jackson writes a property it does not read, or the class changes it when made);"
          + " nothing was written: give the field a constructor parameter or a setter, or mark it"
          + " @JsonIgnore if it need not survive a freeze");
    }
    return plain;
  }

  /** The plain form of {@code value}, with the guard's refusals; not checked by a read back. */
  static Object toPlain(Object value, String root) {
    Guard guard = new Guard();
    try {
      MAPPER.writeValue(guard, value);
    } catch (JsonMappingException e) {
      String field = path(root, e.getPath());
      throw new StateException(StateException.Reason.NOT_FREEZABLE, field, "state " + root
          + " cannot be frozen: " + field + " " + describe(e) + "; nothing was written: keep it out"
          + " of the state (rebuild it in onWake) or store plain data that describes it", e);
    } catch (IOException e) {
      throw new StateException(StateException.Reason.NOT_FREEZABLE, root, "state " + root
          + " cannot be frozen: " + e.getMessage() + "; nothing was written", e);
    }
    try (JsonParser parser = guard.asParser()) {
      parser.nextToken();
      return plain(parser, root, 1);
    } catch (IOException e) {
      throw new StateException(StateException.Reason.NOT_FREEZABLE, root, "state " + root
          + " cannot be frozen: " + e.getMessage() + "; nothing was written", e);
    }
  }

  private static Object plain(JsonParser parser, String path, int depth) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          text(name, path + "." + name + " (its key)");
          JsonToken value = parser.nextToken();
          if (value == JsonToken.VALUE_NULL) {
            continue; // a null in an object reads back as absent
          }
          map.put(escape(name), plain(parser, path + "." + name, depth + 1));
        }
        return map;
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        int index = 0;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          String element = path + "[" + index + "]";
          if (parser.currentToken() == JsonToken.VALUE_NULL) {
            throw new StateException(StateException.Reason.NOT_FREEZABLE, element, "state "
                + root(path) + " cannot be frozen: " + element + " is null, and a list in the"
                + " store holds no null; nothing was written: leave it out, or use a placeholder");
          }
          list.add(plain(parser, element, depth + 1));
          index++;
        }
        return list;
      }
      case VALUE_STRING -> {
        return text(parser.getText(), path);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return parser.getNumberValue();
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      case VALUE_NULL -> {
        return null;
      }
      case VALUE_EMBEDDED_OBJECT -> {
        Object embedded = parser.getEmbeddedObject();
        if (embedded instanceof byte[] bytes) {
          return bytes.clone();
        }
        throw new StateException(StateException.Reason.NOT_FREEZABLE, path, "state "
            + root(path) + " cannot be frozen: " + path + " is written as a "
            + (embedded == null ? "null object" : embedded.getClass().getName())
            + ", not as plain data; nothing was written");
      }
      default -> throw new StateException(StateException.Reason.NOT_FREEZABLE, path, "state "
          + root(path) + " cannot be frozen: unexpected " + token + " at " + path);
    }
  }

  /** {@code text}, refused unless it is well-formed Unicode: the freezer writes UTF-8. */
  private static String text(String text, String path) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new StateException(StateException.Reason.NOT_FREEZABLE, path, "state " + root(path)
            + " cannot be frozen: " + path + " holds text that is not well-formed Unicode (a lone"
            + " surrogate at index " + i + "), which has no UTF-8 form; nothing was written");
      }
    }
    return text;
  }

  /** Refuses, while Jackson writes, what cannot be frozen; Jackson adds the path. */
  private static final class Guard extends TokenBuffer {

    Guard() {
      super(MAPPER, false);
    }

    @Override
    public void writeStartObject(Object forValue) throws IOException {
      check(forValue);
      super.writeStartObject(forValue);
    }

    @Override
    public void writeStartObject(Object forValue, int size) throws IOException {
      check(forValue);
      super.writeStartObject(forValue, size);
    }

    @Override
    public void writeStartArray(Object forValue) throws IOException {
      check(forValue);
      super.writeStartArray(forValue);
    }

    @Override
    public void writeStartArray(Object forValue, int size) throws IOException {
      check(forValue);
      super.writeStartArray(forValue, size);
    }

    private void check(Object value) throws JsonMappingException {
      int depth = 1;
      for (JsonStreamContext context = getOutputContext(); context != null;
          context = context.getParent()) {
        if (value != null && context.getCurrentValue() == value) {
          throw JsonMappingException.from(this, CYCLE + " a " + value.getClass().getSimpleName()
              + " that is already being written above it: a cyclic graph cannot be frozen");
        }
        depth++;
      }
      if (depth > MAX_DEPTH) {
        throw JsonMappingException.from(this, "nests deeper than " + MAX_DEPTH
            + " levels (a cycle, or a structure too deep to freeze)");
      }
      if (value != null) {
        String refusal = refusal(value.getClass());
        if (refusal != null) {
          throw JsonMappingException.from(this, refusal);
        }
      }
    }
  }

  private static final String CYCLE = "refers back to";

  /** Why objects of {@code type} cannot be frozen, or null when they may be. */
  static String refusal(Class<?> type) {
    if (Map.class.isAssignableFrom(type) || Collection.class.isAssignableFrom(type)
        || type.isArray()) {
      return null;
    }
    String name = type.getName();
    if (type.isHidden() || type.isSynthetic() || name.contains("$$Lambda")) {
      return "holds a lambda (" + name + "), which is code, not plain data";
    }
    if (type.isAnonymousClass() || (type.isLocalClass() && !type.isRecord() && !type.isEnum())) {
      return "holds an object of an anonymous or local class (" + name + "), which cannot be"
          + " made again when read";
    }
    if (type.isMemberClass() && !Modifier.isStatic(type.getModifiers())) {
      return "holds an object of an inner class (" + name + ") that is not static, which cannot"
          + " be made again when read";
    }
    if (isJdk(name)) {
      return "holds a " + name + ", which is not plain data (maps, lists, strings, numbers,"
          + " booleans, bytes)";
    }
    return null;
  }

  static boolean isJdk(String className) {
    return className.startsWith("java.") || className.startsWith("javax.")
        || className.startsWith("jdk.") || className.startsWith("sun.")
        || className.startsWith("com.sun.");
  }

  private static String describe(JsonMappingException e) {
    String message = e.getOriginalMessage();
    if (message == null) {
      return "could not be written";
    }
    if (message.startsWith("Direct self-reference")) {
      return CYCLE + " the object that holds it: a cyclic graph cannot be frozen";
    }
    if (message.startsWith("No serializer found for class")) {
      String type = message.substring("No serializer found for class ".length()).split(" ")[0];
      String refusal = null;
      try {
        refusal = refusal(Class.forName(type, false, Thread.currentThread()
            .getContextClassLoader()));
      } catch (ClassNotFoundException | LinkageError | SecurityException ignored) {
        // described below by its name
      }
      return refusal != null ? refusal : "holds a " + type + ", which has no properties Jackson"
          + " can write";
    }
    if (message.startsWith("Java 8 optional type")) {
      return "holds an Optional, which is not plain data: use the value or null";
    }
    if (message.startsWith("Java 8 date/time type")) {
      return "holds a java.time value that is not supported: store its ISO-8601 text";
    }
    return message;
  }

  /** {@code Root.field[2].key}, from Jackson's reference chain. */
  private static String path(String root, List<JsonMappingException.Reference> chain) {
    StringBuilder out = new StringBuilder(root);
    for (JsonMappingException.Reference reference : chain) {
      if (reference.getFieldName() != null) {
        out.append('.').append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        out.append('[').append(reference.getIndex()).append(']');
      }
    }
    return out.toString();
  }

  private static String root(String path) {
    int end = 0;
    while (end < path.length() && path.charAt(end) != '.' && path.charAt(end) != '[') {
      end++;
    }
    return path.substring(0, end);
  }

  // ---- reading --------------------------------------------------------------------------------

  /**
   * Plain data read into {@code type}; unknown fields are ignored, missing ones defaulted.
   *
   * @throws StateException {@link StateException.Reason#UNREADABLE}, naming the field
   */
  static <T> T read(Object plain, Class<T> type) {
    return readUnescaped(unescape(plain), type);
  }

  /**
   * As {@link #read}, for a value whose map keys are already unescaped (an application's own form,
   * as {@link StoredState#value()} holds it).
   */
  static <T> T readUnescaped(Object value, Class<T> type) {
    return readUnescaped(value, type, MAPPER);
  }

  /**
   * As {@link #read}, for state read from its store under {@code key}: a stored field the class
   * does not have is ignored, and told ({@link IgnoredStateFields}).
   */
  static <T> T readStored(Object plain, Class<T> type, String key) {
    String before = READING.get();
    READING.set(key);
    try {
      return readUnescaped(unescape(plain), type, STORED);
    } finally {
      if (before == null) {
        READING.remove();
      } else {
        READING.set(before);
      }
    }
  }

  private static <T> T readUnescaped(Object value, Class<T> type, ObjectMapper mapper) {
    String root = type.getSimpleName();
    try {
      return mapper.convertValue(value, type);
    } catch (IllegalArgumentException e) {
      String field = e.getCause() instanceof JsonMappingException mapping
          ? path(root, mapping.getPath()) : root;
      String why = e.getCause() instanceof JsonMappingException mapping
          ? mapping.getOriginalMessage() : e.getMessage();
      throw new StateException(StateException.Reason.UNREADABLE, field, "the stored " + root
          + " does not read into " + type.getName() + " at " + field + ": " + why, e);
    }
  }

  /** The default of {@code type}: what Jackson makes of an empty object. */
  static <T> T defaultOf(Class<T> type) {
    try {
      return read(Map.of(), type);
    } catch (StateException e) {
      throw new StateException(StateException.Reason.UNREADABLE, e.field(), "state "
          + type.getSimpleName() + " has no value yet and cannot be made from nothing ("
          + e.getMessage() + "); nothing was changed: let every field default (no checks that"
          + " refuse missing fields), or ask isPresent() first", e);
    }
  }

  // ---- plain data itself ----------------------------------------------------------------------

  /**
   * A deep copy of plain data as a freeze brings it back: integers in the narrowest of
   * {@code Integer}, {@code Long}, {@code BigInteger} that holds them, containers fresh.
   */
  static Object thaw(Object plain) {
    if (plain instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((key, value) -> copy.put((String) key, thaw(value)));
      return copy;
    }
    if (plain instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(element -> copy.add(thaw(element)));
      return copy;
    }
    if (plain instanceof byte[] bytes) {
      return bytes.clone();
    }
    if (plain instanceof Long || plain instanceof Integer || plain instanceof Short
        || plain instanceof Byte || plain instanceof BigInteger) {
      BigInteger value = plain instanceof BigInteger big ? big
          : BigInteger.valueOf(((Number) plain).longValue());
      if (value.bitLength() < 32) {
        return value.intValue();
      }
      return value.bitLength() < 64 ? (Object) value.longValue() : value;
    }
    return plain;
  }

  /** Whether {@code value} is plain data as the store holds it. */
  static boolean isPlain(Object value) {
    return isPlain(value, 1);
  }

  private static boolean isPlain(Object value, int depth) {
    if (depth > MAX_DEPTH + 1 || value == null) {
      return false;
    }
    if (value instanceof String || value instanceof Boolean || value instanceof byte[]
        || value instanceof Integer || value instanceof Long || value instanceof Short
        || value instanceof Byte || value instanceof Double || value instanceof Float
        || value instanceof BigInteger || value instanceof BigDecimal) {
      return true;
    }
    if (value instanceof List<?> list) {
      return list.stream().allMatch(element -> isPlain(element, depth + 1));
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String key) || key.isEmpty() || key.indexOf('.') >= 0
            || !isPlain(entry.getValue(), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /**
   * Where two plain values differ, as a path from {@code path}, or null when they agree. Numbers
   * agree by value, lists also when they hold the same elements in another order (a set's order
   * is not the class's to keep).
   */
  static String difference(Object a, Object b, String path) {
    if (a instanceof Map<?, ?> left && b instanceof Map<?, ?> right) {
      for (Object key : left.keySet()) {
        if (!right.containsKey(key)) {
          return path + "." + unescape((String) key);
        }
        String inner = difference(left.get(key), right.get(key), path + "." + unescape((String) key));
        if (inner != null) {
          return inner;
        }
      }
      for (Object key : right.keySet()) {
        if (!left.containsKey(key)) {
          return path + "." + unescape((String) key);
        }
      }
      return null;
    }
    if (a instanceof List<?> left && b instanceof List<?> right) {
      if (left.size() != right.size()) {
        return path;
      }
      String first = null;
      for (int i = 0; i < left.size() && first == null; i++) {
        first = difference(left.get(i), right.get(i), path + "[" + i + "]");
      }
      return first == null || sameElements(left, right) ? null : first;
    }
    if (a instanceof Number left && b instanceof Number right) {
      return numeric(left).compareTo(numeric(right)) == 0 ? null : path;
    }
    if (a instanceof byte[] left && b instanceof byte[] right) {
      return Arrays.equals(left, right) ? null : path;
    }
    return a == null ? (b == null ? null : path) : (a.equals(b) ? null : path);
  }

  private static boolean sameElements(List<?> left, List<?> right) {
    List<Object> remaining = new ArrayList<>(right);
    for (Object element : left) {
      boolean found = false;
      for (int i = 0; i < remaining.size(); i++) {
        if (difference(element, remaining.get(i), "") == null) {
          remaining.remove(i);
          found = true;
          break;
        }
      }
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private static BigDecimal numeric(Number number) {
    if (number instanceof BigDecimal decimal) {
      return decimal;
    }
    if (number instanceof BigInteger integer) {
      return new BigDecimal(integer);
    }
    if (number instanceof Double || number instanceof Float) {
      double value = number.doubleValue();
      return Double.isFinite(value) ? BigDecimal.valueOf(value)
          : BigDecimal.valueOf(Double.hashCode(value)); // NaN and infinities agree with themselves
    }
    return BigDecimal.valueOf(number.longValue());
  }

  // ---- keys -----------------------------------------------------------------------------------

  static String escape(String key) {
    if (key.isEmpty()) {
      return "%";
    }
    if (key.indexOf('%') < 0 && key.indexOf('.') < 0) {
      return key;
    }
    StringBuilder out = new StringBuilder(key.length() + 4);
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      switch (c) {
        case '%' -> out.append("%25");
        case '.' -> out.append("%2E");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  static String unescape(String key) {
    if (key.equals("%")) {
      return "";
    }
    if (key.indexOf('%') < 0) {
      return key;
    }
    StringBuilder out = new StringBuilder(key.length());
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c == '%' && key.startsWith("%25", i)) {
        out.append('%');
        i += 2;
      } else if (c == '%' && key.startsWith("%2E", i)) {
        out.append('.');
        i += 2;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** A deep copy of plain data as a freeze brings it back, its map keys unescaped. */
  static Object unescaped(Object plain) {
    return unescape(thaw(plain));
  }

  private static Object unescape(Object plain) {
    if (plain instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((key, value) -> copy.put(unescape((String) key), unescape(value)));
      return copy;
    }
    if (plain instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(element -> copy.add(unescape(element)));
      return copy;
    }
    return plain;
  }
}
