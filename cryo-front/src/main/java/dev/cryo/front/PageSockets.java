package dev.cryo.front;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.PushSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

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
  private volatile Consumer<String> whileBinding = page -> { };

  private final int maxSockets;
  private final int maxPerConnection;
  private final ConcurrentHashMap<String, Integer> perConnection = new ConcurrentHashMap<>();
  /** The sockets counted open, by connection: what a retired cookie's sockets are found by. */
  private final ConcurrentHashMap<String, Set<PageSocket>> byConnection = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();

  /** No more than {@code maxSockets} sockets open, {@code maxPerConnection} of one connection. */
  PageSockets(int maxSockets, int maxPerConnection) {
    this.maxSockets = maxSockets;
    this.maxPerConnection = maxPerConnection;
  }

  /** Without limits worth the name (for tests of other things). */
  PageSockets() {
    this(Integer.MAX_VALUE, Integer.MAX_VALUE);
  }

  /**
   * Counts {@code socket} open if the limits allow it, and says why not otherwise: null when it
   * was counted (then {@link #closed} counts it down), else the close code and reason it must be
   * closed with — 1013 when the port has {@code maxSockets} open, 1008 when its connection has
   * {@code maxPerConnection}. Thread-safe: the counts never pass their limits.
   */
  Refusal opened(PageSocket socket) {
    if (open.incrementAndGet() > maxSockets) {
      open.decrementAndGet();
      refused.incrementAndGet();
      return new Refusal(org.eclipse.jetty.websocket.api.StatusCode.TRY_AGAIN_LATER, "the server"
          + " has " + maxSockets + " page sockets open: try again later");
    }
    boolean[] admitted = {true};
    perConnection.compute(socket.connection(), (c, count) -> {
      int now = count == null ? 0 : count;
      if (now >= maxPerConnection) {
        admitted[0] = false;
        return count;
      }
      return now + 1;
    });
    if (!admitted[0]) {
      open.decrementAndGet();
      refused.incrementAndGet();
      return new Refusal(org.eclipse.jetty.websocket.api.StatusCode.POLICY_VIOLATION, "this"
          + " connection has " + maxPerConnection + " page sockets open: close one first");
    }
    opened.incrementAndGet();
    byConnection.computeIfAbsent(socket.connection(), c -> ConcurrentHashMap.newKeySet())
        .add(socket);
    return null;
  }

  /** Why a socket was not counted open: the close code and reason it is closed with. */
  record Refusal(int code, String reason) {}

  /** The sockets refused by the limits since the front started. */
  long refused() {
    return refused.get();
  }

  /**
   * Binds {@code page} to {@code socket}: the page's pushes are written to it from now on, until
   * {@link #unbind} or {@link #closed}. Thread-safe, and atomic with the unbinds of the same page:
   * the socket joins the page's set in the one update of the page's entry, so an unbind of the
   * page's other socket that empties the set and drops it cannot drop this socket with it.
   *
   * <p>Whether the socket is closed is the caller's business: {@link PageSocket} adds the page to
   * its {@link PageSocket#pages} before it binds it, and unbinds it again when it finds itself
   * closed after (see its {@code bind}).
   */
  void bind(String page, PageSocket socket) {
    byPage.compute(page, (p, sockets) -> {
      Set<PageSocket> bound = sockets != null ? sockets : ConcurrentHashMap.newKeySet();
      whileBinding.accept(p);
      bound.add(socket);
      return bound;
    });
  }

  /**
   * Unbinds {@code page} from {@code socket} if it is bound (else does nothing), and drops the
   * page's set once no socket is left in it. Thread-safe; atomic with {@link #bind} of the page.
   */
  void unbind(String page, PageSocket socket) {
    byPage.computeIfPresent(page, (p, sockets) -> {
      sockets.remove(socket);
      return sockets.isEmpty() ? null : sockets;
    });
  }

  /**
   * Counts {@code socket} (one {@link #opened} counted) closed and unbinds the pages it names now ({@link PageSocket#pages});
   * a page it binds after is its own to unbind. Thread-safe.
   */
  void closed(PageSocket socket, boolean slow) {
    open.decrementAndGet();
    perConnection.computeIfPresent(socket.connection(), (c, count) -> count <= 1 ? null
        : count - 1);
    byConnection.computeIfPresent(socket.connection(), (c, sockets) -> {
      sockets.remove(socket);
      return sockets.isEmpty() ? null : sockets;
    });
    if (slow) {
      slowClosed.incrementAndGet();
    }
    for (String page : socket.pages()) {
      unbind(page, socket);
    }
  }

  /**
   * For tests: runs {@code hook} with the page inside each {@link #bind}, once the page's set is
   * found and before the socket joins it. Unbinds of that page wait for it.
   */
  void whileBinding(Consumer<String> hook) {
    whileBinding = Objects.requireNonNull(hook);
  }

  /**
   * Retires ({@link PageSocket#retire}) every open socket of {@code connection} whose cookie did
   * not prove {@code credential} (null: every one), bound to a page or not yet: a login or a
   * logout retired the cookie they were opened with. Thread-safe.
   */
  void retire(String connection, String credential) {
    Set<PageSocket> stale = new java.util.HashSet<>();
    for (PageSocket socket : byConnection.getOrDefault(connection, Set.of())) {
      if (credential == null || !credential.equals(socket.credential())) {
        stale.add(socket); // bound to a page or not yet: it would bind one later
      }
    }
    stale.forEach(PageSocket::retire);
  }

  /**
   * Tells every socket of {@code connection} bound to {@code page} that the server closed the page
   * ({@link PageSocket#pageClosed}): a socket left without pages is closed with
   * {@value PageSocket#PAGE_CLOSED} {@code page_closed}. Thread-safe; never blocks.
   */
  @Override
  public void pageClosed(String connection, String page) {
    Set<PageSocket> sockets = byPage.get(page);
    if (sockets == null) {
      return;
    }
    for (PageSocket socket : Set.copyOf(sockets)) {
      if (socket.connection().equals(connection)) {
        socket.pageClosed(page);
      }
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
