package dev.cryo.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One line of a run's event log ({@code events.jsonl}, written by each {@code cryo serve} of the
 * run): its number {@code n}, its instant {@code at}, its type {@code event}, and the type's other
 * fields, kept as JSON. Only documented fields are read, and unknown ones are ignored.
 *
 * @param number the line's {@code n} (0 when the line had none)
 * @param at the line's {@code at}
 * @param type the line's {@code event}
 * @param fields the whole line as JSON (an object)
 */
public record Event(long number, Instant at, String type, JsonNode fields) {

  /** Checks the fields. */
  public Event {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(fields, "fields");
  }

  /**
   * Reads one line.
   *
   * @throws IOException when it is not a JSON object with a textual {@code event} and an ISO-8601
   *     {@code at}
   */
  public static Event parse(String line) throws IOException {
    JsonNode node = History.JSON.readTree(line);
    if (node == null || !node.isObject()) {
      throw new IOException("not a JSON object");
    }
    JsonNode type = node.get("event");
    JsonNode at = node.get("at");
    if (type == null || !type.isTextual() || at == null || !at.isTextual()) {
      throw new IOException("no textual \"event\" and \"at\"");
    }
    Instant instant;
    try {
      instant = Instant.parse(at.asText());
    } catch (DateTimeParseException e) {
      throw new IOException("\"at\" is not an ISO-8601 instant: " + at.asText(), e);
    }
    return new Event(node.path("n").asLong(0), instant, type.asText(), node);
  }

  /** An event with the given fields (lists of names, texts, numbers), for tests and tools. */
  public static Event of(long number, Instant at, String type, Map<String, ?> fields) {
    ObjectNode node = History.JSON.createObjectNode();
    node.put("n", number);
    node.put("at", at.toString());
    node.put("event", type);
    node.setAll((ObjectNode) History.JSON.valueToTree(fields));
    return new Event(number, at, type, node);
  }

  /** {@link #at} in milliseconds since the epoch: the history's {@code wall} clock. */
  public long atMillis() {
    return at.toEpochMilli();
  }

  /** The textual value of {@code field}, or null when it is absent or not text. */
  public String text(String field) {
    JsonNode value = fields.get(field);
    return value != null && value.isTextual() ? value.asText() : null;
  }

  /**
   * The textual elements of {@code field} when it is an array (other elements are skipped), or
   * null when it is absent or not an array.
   */
  public List<String> names(String field) {
    JsonNode value = fields.get(field);
    if (value == null || !value.isArray()) {
      return null;
    }
    List<String> names = new ArrayList<>(value.size());
    for (JsonNode element : value) {
      if (element.isTextual()) {
        names.add(element.asText());
      }
    }
    return names;
  }
}
