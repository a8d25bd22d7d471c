package dev.cryo.commander;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The commander's item: its maps as a drain leaves them, written as {@code commander.parcel} at the
 * freezer root before the root is renamed to the reboot data, and read back by the next start. Every
 * user in it is frozen (his folder is in the same root); identities are kept as they are, never
 * derived from folder names. Immutable.
 *
 * <p>The payload is a plain tree: {@code {version: 1, writtenAt: epoch ms, cause, frozen: [user…],
 * connections: {connection: user}, pages: {page: connection}, generations: {user: generation}}}
 * ({@code generations} may be missing, as in items written before it: every generation unknown). {@code writtenAt} is what an expiry
 * that has no parcel header to read may count from; each user's parcel header carries his own time.
 *
 * @param frozen the frozen users, sorted
 * @param connectionUser connection → user, each user one of {@code frozen}
 * @param pageConnection page → connection, each connection one of {@code connectionUser}'s
 * @param generations frozen user → the generation he was frozen at, for those it is known of:
 *     the least generation of a parcel his wake may read
 * @param writtenAt when it was written
 * @param cause why ({@code drain}, {@code journal})
 */
public record CommanderItem(List<String> frozen, Map<String, String> connectionUser,
    Map<String, String> pageConnection, Map<String, Long> generations, Instant writtenAt,
    String cause) {

  /** An item that knows no generation. */
  public CommanderItem(List<String> frozen, Map<String, String> connectionUser,
      Map<String, String> pageConnection, Instant writtenAt, String cause) {
    this(frozen, connectionUser, pageConnection, Map.of(), writtenAt, cause);
  }

  /** The payload's version this code writes and reads. */
  public static final int VERSION = 1;

  /** Copies the parts, sorted; checks that connections name frozen users and pages connections. */
  public CommanderItem {
    frozen = List.copyOf(new TreeSet<>(frozen));
    connectionUser = Map.copyOf(connectionUser);
    pageConnection = Map.copyOf(pageConnection);
    generations = Map.copyOf(generations);
    Objects.requireNonNull(writtenAt, "writtenAt");
    Objects.requireNonNull(cause, "cause");
    TreeSet<String> users = new TreeSet<>(frozen);
    for (Map.Entry<String, Long> generation : generations.entrySet()) {
      if (!users.contains(generation.getKey()) || generation.getValue() <= 0) {
        throw new IllegalArgumentException("the generation of '" + generation.getKey() + "' ("
            + generation.getValue() + ") names no frozen user, or is not positive");
      }
    }
    for (Map.Entry<String, String> link : connectionUser.entrySet()) {
      if (!users.contains(link.getValue())) {
        throw new IllegalArgumentException("connection '" + link.getKey() + "' names '"
            + link.getValue() + "', who is not among the frozen users");
      }
    }
    for (Map.Entry<String, String> link : pageConnection.entrySet()) {
      if (!connectionUser.containsKey(link.getValue())) {
        throw new IllegalArgumentException("page '" + link.getKey() + "' names connection '"
            + link.getValue() + "', which is not among the connections");
      }
    }
  }

  /** The item of maps in which every user is frozen (the others are left out, with their keys). */
  static CommanderItem of(Routing.Snapshot maps, Instant now, String cause) {
    List<String> frozen = new ArrayList<>();
    Map<String, Long> generations = new TreeMap<>();
    maps.users().forEach((user, location) -> {
      if (location instanceof Location.Frozen at) {
        frozen.add(user);
        if (at.generation() > 0) {
          generations.put(user, at.generation());
        }
      }
    });
    TreeSet<String> kept = new TreeSet<>(frozen);
    Map<String, String> connections = new TreeMap<>();
    maps.connectionUser().forEach((connection, user) -> {
      if (kept.contains(user)) {
        connections.put(connection, user);
      }
    });
    Map<String, String> pages = new TreeMap<>();
    maps.pageConnection().forEach((page, connection) -> {
      if (connections.containsKey(connection)) {
        pages.put(page, connection);
      }
    });
    return new CommanderItem(frozen, connections, pages, generations, now, cause);
  }

  /** The plain tree written as the parcel's payload. */
  public Map<String, Object> toPayload() {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("version", VERSION);
    payload.put("writtenAt", writtenAt.toEpochMilli());
    payload.put("cause", cause);
    payload.put("frozen", frozen);
    payload.put("connections", new TreeMap<>(connectionUser));
    payload.put("pages", new TreeMap<>(pageConnection));
    payload.put("generations", new TreeMap<>(generations));
    return payload;
  }

  /**
   * Reads a payload written by {@link #toPayload}.
   *
   * @throws IllegalArgumentException naming what does not read (a missing part, a wrong type, a
   *     version this code does not know, a connection of nobody)
   */
  public static CommanderItem fromPayload(Object payload) {
    if (!(payload instanceof Map<?, ?> tree)) {
      throw new IllegalArgumentException("the commander item is not a map");
    }
    if (!(tree.get("version") instanceof Number version) || version.intValue() != VERSION) {
      throw new IllegalArgumentException("the commander item's version is " + tree.get("version")
          + ", not " + VERSION);
    }
    if (!(tree.get("writtenAt") instanceof Number writtenAt)) {
      throw new IllegalArgumentException("the commander item has no writtenAt time");
    }
    return new CommanderItem(strings(tree.get("frozen"), "frozen"),
        stringMap(tree.get("connections"), "connections"), stringMap(tree.get("pages"), "pages"),
        tree.containsKey("generations") ? longMap(tree.get("generations"), "generations")
            : Map.of(),
        Instant.ofEpochMilli(writtenAt.longValue()), String.valueOf(tree.get("cause")));
  }

  private static Map<String, Long> longMap(Object value, String part) {
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("the commander item's " + part + " is not a map");
    }
    Map<String, Long> numbers = new LinkedHashMap<>();
    map.forEach((key, element) -> {
      if (!(key instanceof String k) || !(element instanceof Number v)
          || element instanceof Double || element instanceof Float) {
        throw new IllegalArgumentException("the commander item's " + part + " holds " + key + " → "
            + element + ", not a user and a whole number");
      }
      numbers.put(k, v.longValue());
    });
    return numbers;
  }

  private static List<String> strings(Object value, String part) {
    if (!(value instanceof List<?> list)) {
      throw new IllegalArgumentException("the commander item's " + part + " is not a list");
    }
    List<String> strings = new ArrayList<>(list.size());
    for (Object element : list) {
      if (!(element instanceof String string)) {
        throw new IllegalArgumentException("the commander item's " + part + " holds " + element
            + ", not a string");
      }
      strings.add(string);
    }
    return strings;
  }

  private static Map<String, String> stringMap(Object value, String part) {
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("the commander item's " + part + " is not a map");
    }
    Map<String, String> strings = new LinkedHashMap<>();
    map.forEach((key, element) -> {
      if (!(key instanceof String k) || !(element instanceof String v)) {
        throw new IllegalArgumentException("the commander item's " + part + " holds " + key + " → "
            + element + ", not strings");
      }
      strings.put(k, v);
    });
    return strings;
  }
}
