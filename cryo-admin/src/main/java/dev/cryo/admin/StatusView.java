package dev.cryo.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.commander.Status;
import dev.cryo.front.SocketStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The documents the admin listener serves about the run: {@link #statusJson()}, the shape of
 * {@code cryo status --json} ({@link Status#toJson(boolean)}, the one source of that shape), and
 * {@link #liveJson()}, what the live page draws:
 *
 * <pre>{@code
 * {"status": {...the status.json shape, with "alive"...},
 *  "sockets": {"open": N, "pushes_delivered": N, "pushes_undelivered": N},
 *  "events": [{"at": ISO-8601, "label": "birth"|"freeze"|..., "event": TYPE, ...fields}, ...],
 *  "history": [{"at": ISO-8601, "users": {"main_0001": N, ...}}, ...]}
 * }</pre>
 *
 * with the latest events newest first and the history oldest first. Thread-safe.
 */
final class StatusView {

  /** How many events the live document carries. */
  static final int EVENTS_SHOWN = 40;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<Status> status;
  private final EventBoard events;
  private final UsersHistory history;
  private final Supplier<SocketStats> sockets;

  StatusView(Supplier<Status> status, EventBoard events, UsersHistory history,
      Supplier<SocketStats> sockets) {
    this.sockets = Objects.requireNonNull(sockets, "sockets");
    this.status = Objects.requireNonNull(status, "status");
    this.events = Objects.requireNonNull(events, "events");
    this.history = Objects.requireNonNull(history, "history");
  }

  /** The status as {@code cryo status --json} prints it; alive while the run is running. */
  byte[] statusJson() {
    Status now = status.get();
    return now.toJson(isAlive(now));
  }

  private static boolean isAlive(Status status) {
    return "running".equals(status.state());
  }

  /** The live page's document, compact JSON. */
  byte[] liveJson() {
    Status now = status.get();
    try {
      ObjectNode root = JSON.createObjectNode();
      root.set("status", JSON.readTree(now.toJson(isAlive(now))));
      SocketStats open = sockets.get();
      ObjectNode socketFields = root.putObject("sockets");
      socketFields.put("open", open.open());
      socketFields.put("pushes_delivered", open.pushesDelivered());
      socketFields.put("pushes_undelivered", open.pushesUndelivered());
      root.set("events", JSON.valueToTree(events.latest(EVENTS_SHOWN)));
      ArrayNode samples = root.putArray("history");
      for (UsersHistory.Sample sample : history.samples()) {
        ObjectNode row = samples.addObject();
        row.put("at", sample.at().toString());
        row.set("users", JSON.valueToTree(sample.users()));
      }
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException("the live status did not write as JSON", e);
    }
  }
}
