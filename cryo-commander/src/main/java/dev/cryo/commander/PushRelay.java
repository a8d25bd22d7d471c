package dev.cryo.commander;

import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.PushResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Relays a worker's push to the front: it names the pages of the target from the routing maps
 * (page → connection is kept for frozen users, whose sockets stay open in the front) and hands
 * each to the {@link PushSink}. Nothing wakes anyone and nothing waits for a browser.
 *
 * <p>Thread-safe: the sink is swapped atomically; pushes run concurrently.
 */
final class PushRelay {

  private final Routing routing;
  private volatile PushSink sink = PushSink.NONE;

  PushRelay(Routing routing) {
    this.routing = Objects.requireNonNull(routing, "routing");
  }

  /** Sends later pushes to {@code value}. */
  void sink(PushSink value) {
    this.sink = Objects.requireNonNull(value, "sink");
  }

  /** Tells the sink that {@code page} of {@code connection} was closed for good. */
  void pageClosed(String connection, String page) {
    sink.pageClosed(connection, page);
  }

  /** Whether any page may have a socket bound now ({@link PushSink#anyBound}). */
  boolean anyBound() {
    return sink.anyBound();
  }

  /** Delivers one push; never throws for a page without a socket (it counts as not written). */
  PushResult push(PushMessage message) {
    List<String[]> pages = new ArrayList<>(); // {connection, page}
    switch (message.target()) {
      case PushMessage.PAGE -> routing.connectionOfPage(message.key())
          .ifPresent(connection -> pages.add(new String[] {connection, message.key()}));
      case PushMessage.CONNECTION -> addPages(message.key(), pages);
      default -> routing.connectionsOf(message.key()).forEach(c -> addPages(c, pages));
    }
    PushSink target = sink;
    int written = 0;
    for (String[] page : pages) {
      if (target.deliver(page[0], page[1], message.data())) {
        written++;
      }
    }
    return new PushResult(pages.size(), written);
  }

  private void addPages(String connection, List<String[]> into) {
    for (String page : routing.pagesOf(connection)) {
      into.add(new String[] {connection, page});
    }
  }
}
