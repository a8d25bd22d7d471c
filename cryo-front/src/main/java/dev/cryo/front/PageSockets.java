package dev.cryo.front;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.PushSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The front's open page sockets and the pages bound to each: where the commander's pushes are
 * written. A page may be bound to several sockets (its tabs), a socket to several pages. The
 * bindings live here, in the front, so a freeze or a move of the user (which only the workers and
 * the commander see) changes none of them.
 *
 * <p>Thread-safe: sockets open, bind and close on Jetty's threads while pushes arrive on the
 * commander's.
 */
final class PageSockets implements PushSink, SocketStats {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConcurrentHashMap<String, Set<PageSocket>> byPage = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong undelivered = new AtomicLong();
  private final AtomicLong slowClosed = new AtomicLong();

  void opened(PageSocket socket) {
    open.incrementAndGet();
    opened.incrementAndGet();
  }

  void bind(String page, PageSocket socket) {
    byPage.computeIfAbsent(page, p -> ConcurrentHashMap.newKeySet()).add(socket);
  }

  void closed(PageSocket socket, boolean slow) {
    open.decrementAndGet();
    if (slow) {
      slowClosed.incrementAndGet();
    }
    for (String page : socket.pages()) {
      byPage.computeIfPresent(page, (p, sockets) -> {
        sockets.remove(socket);
        return sockets.isEmpty() ? null : sockets;
      });
    }
  }

  /** Whether any page is bound to a socket now (a socket bound to no page gets no push). */
  @Override
  public boolean anyBound() {
    return !byPage.isEmpty();
  }

  /** How many sockets the page is bound to now. */
  int socketsOf(String page) {
    Set<PageSocket> sockets = byPage.get(page);
    return sockets == null ? 0 : sockets.size();
  }

  @Override
  public boolean deliver(String connection, String page, byte[] data) {
    Set<PageSocket> sockets = byPage.get(page);
    boolean written = false;
    if (sockets != null) {
      String message = pushMessage(page, data);
      if (message != null) {
        for (PageSocket socket : sockets) {
          if (socket.connection().equals(connection) && socket.send(message)) {
            written = true;
          }
        }
      }
    }
    (written ? delivered : undelivered).incrementAndGet();
    return written;
  }

  /** {@code {"type":"push","page":P,"data":V}}, or null when {@code data} is not one JSON value. */
  private static String pushMessage(String page, byte[] data) {
    try {
      var node = JSON.createObjectNode();
      node.put("type", "push");
      node.put("page", page);
      node.set("data", JSON.readTree(data));
      return JSON.writeValueAsString(node);
    } catch (IOException | RuntimeException e) {
      System.getLogger(PageSockets.class.getName()).log(System.Logger.Level.WARNING, "a push to"
          + " page " + page + " is not one JSON value (" + new String(data, 0,
          Math.min(data.length, 80), StandardCharsets.UTF_8) + "…); it was not written");
      return null;
    }
  }

  @Override
  public int open() {
    return open.get();
  }

  @Override
  public long opened() {
    return opened.get();
  }

  @Override
  public long pushesDelivered() {
    return delivered.get();
  }

  @Override
  public long pushesUndelivered() {
    return undelivered.get();
  }

  @Override
  public long slowReadersClosed() {
    return slowClosed.get();
  }
}
