package dev.cryo.chaos.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.History;
import java.util.ArrayList;
import java.util.List;

/** Edits of history lines, to plant anomalies in correct histories. */
final class Entries {

  private Entries() {}

  /**
   * A line from its fields (absent ones null): built through JSON, as the history is read, so it
   * does not depend on the order or number of the record's components.
   */
  static Entry of(Object... fieldsAndValues) {
    ObjectNode node = History.JSON.createObjectNode();
    for (int i = 0; i < fieldsAndValues.length; i += 2) {
      Object value = fieldsAndValues[i + 1];
      if (value != null) {
        node.set((String) fieldsAndValues[i], History.JSON.valueToTree(value));
      }
    }
    try {
      return History.JSON.treeToValue(node, Entry.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** The line with one field set ({@code null} removes it). */
  static Entry with(Entry entry, String field, Object value) {
    ObjectNode node = History.JSON.valueToTree(entry);
    if (value == null) {
      node.putNull(field);
    } else {
      node.set(field, History.JSON.valueToTree(value));
    }
    try {
      return History.JSON.treeToValue(node, Entry.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** A copy of the history with one field of the completion of {@code op} set. */
  static List<Entry> withCompletion(List<Entry> history, long op, String field, Object value) {
    List<Entry> edited = new ArrayList<>(history);
    for (int i = 0; i < edited.size(); i++) {
      Entry entry = edited.get(i);
      if (entry.isCompletion() && entry.op() == op) {
        edited.set(i, with(entry, field, value));
        return edited;
      }
    }
    throw new IllegalArgumentException("no completion of operation " + op);
  }

  /** The completion line of {@code op}. */
  static Entry completion(List<Entry> history, long op) {
    return history.stream().filter(e -> e.isCompletion() && e.op() == op).findFirst()
        .orElseThrow();
  }
}
