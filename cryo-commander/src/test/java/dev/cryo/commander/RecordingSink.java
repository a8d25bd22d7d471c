package dev.cryo.commander;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An event sink that keeps every event, for assertions. */
final class RecordingSink implements EventSink {

  /** One event kept. */
  record Event(String event, Map<String, Object> fields) {}

  private final List<Event> events = new ArrayList<>();

  @Override
  public synchronized void record(String event, Map<String, Object> fields) {
    events.add(new Event(event, new LinkedHashMap<>(fields)));
  }

  synchronized List<Event> events() {
    return List.copyOf(events);
  }

  synchronized List<Event> of(String event) {
    return events.stream().filter(e -> e.event().equals(event)).toList();
  }
}
