package dev.cryo.commander;

import java.util.Map;

/**
 * Receives the commander's events in the order they happened: one per fold of an announcement, and
 * one per birth, presentation, failed start, move and death of a worker. The routing maps call it
 * under their lock, so events of folds are given in fold order; it must return quickly and must not
 * call back into the maps. The shape of each event is documented in the package description.
 */
@FunctionalInterface
public interface EventSink {

  /** A sink that drops every event. */
  EventSink NONE = (event, fields) -> { };

  /**
   * One event.
   *
   * @param event its type ({@code fold}, {@code worker_died}, …)
   * @param fields its fields, in order; values are strings, numbers, booleans, lists or null
   */
  void record(String event, Map<String, Object> fields);
}
