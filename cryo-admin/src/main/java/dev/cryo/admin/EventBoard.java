package dev.cryo.admin;

import dev.cryo.commander.RunListener;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The latest events of a run worth showing on the status page — births and drops of users,
 * logins, freezes, wakes, moves, workers' births and deaths, ended quits and anomalies — kept in
 * a bounded ring (the oldest fall off). Folds of connections and pages are left out: a page
 * reload would drown the rest. Each kept event is the event log's line without its number, with
 * {@code at} (this board's clock) and {@code label}, a short word for the page: {@code birth},
 * {@code drop}, {@code login}, {@code freeze}, {@code wake}, {@code move}, {@code worker},
 * {@code death}, {@code quit}, {@code anomaly}.
 *
 * <p>Thread-safe: {@link #event} is called by the commander under its maps' lock (it copies and
 * returns at once); {@link #latest} from any thread.
 */
public final class EventBoard implements RunListener {

  /** The fold kinds kept, each with its word. */
  private static final Map<String, String> FOLDS = Map.of(
      "new_user", "birth", "drop_user", "drop", "login", "login",
      "user_frozen", "freeze", "user_adopted", "wake");
  private static final Set<String> WORKER_EVENTS = Set.of("worker_spawned", "worker_presented",
      "worker_start_failed", "worker_start_abandoned");

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private final int capacity;
  private final Clock clock;
  private final ArrayDeque<Map<String, Object>> ring; // guarded by this
  private long count; // guarded by this

  /** A board keeping the latest {@code capacity} events, stamped with {@code clock}. */
  public EventBoard(int capacity, Clock clock) {
    if (capacity < 1) {
      throw new IllegalArgumentException("an event board keeps at least 1 event, not " + capacity);
    }
    this.capacity = capacity;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ring = new ArrayDeque<>(capacity);
  }

  @Override
  public void event(String event, Map<String, Object> fields) {
    keep(clock.instant().toString(), event, fields);
  }

  /**
   * Keeps the events of an event log's lines ({@code events.jsonl}), oldest first, as if they had
   * just happened but with their own {@code at}: how a board made after the run started shows
   * what came before it (the workers' births). A line that is not a JSON object with an
   * {@code event} is skipped.
   */
  public void seed(List<String> lines) {
    for (String text : lines) {
      try {
        if (!(JSON.readTree(text) instanceof com.fasterxml.jackson.databind.node.ObjectNode
            object) || !object.path("event").isTextual()) {
          continue;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = JSON.convertValue(object, LinkedHashMap.class);
        String event = (String) fields.remove("event");
        Object at = fields.remove("at");
        fields.remove("n");
        keep(at == null ? clock.instant().toString() : at.toString(), event, fields);
      } catch (java.io.IOException | IllegalArgumentException e) {
        // a torn or foreign line: skipped, the rest is kept
      }
    }
  }

  private void keep(String at, String event, Map<String, Object> fields) {
    String kind = labelOf(event, fields);
    if (kind == null) {
      return;
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("at", at);
    line.put("label", kind);
    line.put("event", event);
    fields.forEach(line::putIfAbsent); // a field of the event never takes the place of these
    synchronized (this) {
      if (ring.size() == capacity) {
        ring.removeFirst();
      }
      ring.addLast(line);
      count++;
    }
  }

  /** The word of an event kept, or null for an event left out. */
  static String labelOf(String event, Map<String, Object> fields) {
    return switch (event) {
      case "fold" -> FOLDS.get(String.valueOf(fields.get("kind")));
      case "move" -> "move";
      case "worker_died" -> "death";
      case "quit_ended" -> "quit"; // the quit's counts; its freezes are folds of their own
      case "anomaly" -> "anomaly";
      default -> WORKER_EVENTS.contains(event) ? "worker" : null;
    };
  }

  /** The latest {@code limit} events kept, newest first. */
  public synchronized List<Map<String, Object>> latest(int limit) {
    List<Map<String, Object>> latest = new ArrayList<>(Math.min(limit, ring.size()));
    var newestFirst = ring.descendingIterator();
    while (newestFirst.hasNext() && latest.size() < limit) {
      latest.add(newestFirst.next());
    }
    return latest;
  }

  /** How many events were kept since the board was made (the ring's losses included). */
  public synchronized long count() {
    return count;
  }
}
