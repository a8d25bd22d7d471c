package dev.cryo.front;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;

/**
 * One browser connection's WebSocket ({@code /_cryo/ws}), in the protocol of
 * {@code docs/socket.md}: pages open their channel on it, their calls go through the same
 * {@link Upstream#serve} as HTTP (routing, holds, placement, wakes), and pushes come back on it.
 * It lives in the front: a freeze or move of its user is invisible to it.
 *
 * <p>Bounded: {@link SocketLimits#maxInFlight()} calls at once (more are answered 429), messages
 * up to {@link SocketLimits#maxMessageChars()} (Jetty closes longer ones with 1009), and at most
 * {@link SocketLimits#maxQueuedChars()} characters waiting to be written — a reader that falls
 * behind past it is closed with 1008 and cut.
 *
 * <p>Public only because Jetty calls its listener methods through method handles; it has no
 * public constructor and is no API.
 *
 * <p>Threads: Jetty calls the listener methods one at a time; calls run on virtual threads of
 * their own; {@link #send} is called from those and from the commander's push threads, and may
 * close the socket there (a slow reader) at any moment, even while a page is being opened on it:
 * a closed socket still leaves no page bound (see {@link #bind}).
 */
public final class PageSocket implements Session.Listener.AutoDemanding {

  private static final System.Logger LOG = System.getLogger(PageSocket.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Headers a socket's calls carry beyond the handshake's: the page the call is for. */
  static final String PAGE_HEADER = "x-cryo-page";

  private final String connection;
  private final List<Map.Entry<String, String>> handshakeHeaders;
  private final PageSockets registry;
  private final Upstream upstream;
  private final SocketLimits limits;
  private final BodyBudget budget;
  private final Set<String> pages = ConcurrentHashMap.newKeySet();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong queued = new AtomicLong();
  private final AtomicBoolean ended = new AtomicBoolean();
  /** Set once by {@link #retire}: the socket's cookie was retired. */
  private final AtomicBoolean retired = new AtomicBoolean();
  private volatile boolean slow;
  private volatile String lastPage;
  private volatile Session session;
  private volatile Consumer<String> beforeBind = page -> { };

  /** The credential the handshake's cookie proved ({@link ConnectionCookie#credentialOf}), or null. */
  private final String credential;

  PageSocket(String connection, List<Map.Entry<String, String>> handshakeHeaders,
      PageSockets registry, Upstream upstream, SocketLimits limits, BodyBudget budget) {
    this(connection, null, handshakeHeaders, registry, upstream, limits, budget);
  }

  PageSocket(String connection, String credential,
      List<Map.Entry<String, String>> handshakeHeaders, PageSockets registry, Upstream upstream,
      SocketLimits limits, BodyBudget budget) {
    this.credential = credential;
    this.budget = Objects.requireNonNull(budget);
    this.connection = Objects.requireNonNull(connection);
    this.handshakeHeaders = List.copyOf(handshakeHeaders);
    this.registry = registry;
    this.upstream = upstream;
    this.limits = limits;
  }

  /** The connection id of the cookie the handshake carried. */
  String connection() {
    return connection;
  }

  /** The credential its handshake's cookie proved, null for a cookie never rotated. */
  String credential() {
    return credential;
  }

  /**
   * Retires the socket because the cookie it was opened with was retired by a login or a logout:
   * whoever holds that cookie must reach nothing of the connection any more. From now on its pages
   * get no push and a new call or open is refused {@code 409 cookie_rotated}; the calls already in
   * flight are answered (the worker refuses those that reach the connection after the login), and
   * then the socket is closed (1008): the page's script opens a new one with the browser's new
   * cookie. Closing at once would leave those calls unanswered, their outcome unknown to the page.
   * Any thread; once.
   */
  void retire() {
    if (!retired.compareAndSet(false, true)) {
      return;
    }
    for (String page : pages()) {
      registry.unbind(page, this); // before the calls end: no push reaches the old cookie
    }
    if (inFlight.get() == 0) {
      closeRetired();
    }
  }

  /** Closes a retired socket (1008), once its calls are answered. */
  private void closeRetired() {
    Session current = session;
    if (current != null) {
      current.close(StatusCode.POLICY_VIOLATION, "the connection's cookie changed: open the"
          + " socket again", Callback.NOOP);
    }
    end();
  }

  /** Ends a call's count in flight; the last one of a retired socket closes it. */
  private void callEnded() {
    if (inFlight.decrementAndGet() == 0) {
      if (retired.get()) {
        closeRetired();
      } else if (lastPageClosed.get() && pages.isEmpty()) {
        closePageClosed();
      }
    }
  }

  /** The close code of a socket whose last page the server closed: {@value}. */
  static final int PAGE_CLOSED = 4404;

  /** The close reason of a socket whose last page the server closed. */
  static final String PAGE_CLOSED_REASON = "page_closed";

  /** Set once the server closed the last page this socket had. */
  private final AtomicBoolean lastPageClosed = new AtomicBoolean();

  /**
   * Page {@code page} was closed for good by the server (the application's {@code closePage}, a
   * drop order): it leaves this socket, which tells its client. When it was the socket's last page
   * the socket is closed with {@value #PAGE_CLOSED} {@code page_closed} — once the calls in flight
   * are answered (the call that closed the page may be one of them) — and a client must not open
   * that page again; otherwise the socket writes {@code {"type":"page_closed","page":P}} and stays
   * open for its other pages. Any thread; must not block (the commander calls it folding).
   */
  void pageClosed(String page) {
    if (!pages.remove(page)) {
      return;
    }
    registry.unbind(page, this);
    if (page.equals(lastPage)) {
      lastPage = null; // a call naming no page names no closed page
    }
    if (!pages.isEmpty()) {
      ObjectNode message = JSON.createObjectNode();
      message.put("type", "page_closed");
      message.put("page", page);
      send(message);
      return;
    }
    lastPageClosed.set(true);
    if (inFlight.get() == 0) {
      closePageClosed();
    }
  }

  /** Closes a socket whose last page the server closed (4404), once its calls are answered. */
  private void closePageClosed() {
    Session current = session;
    if (current != null) {
      current.close(PAGE_CLOSED, PAGE_CLOSED_REASON, Callback.NOOP);
    }
    end();
  }

  /** The refusal of a call or an open on a retired socket ({@link #retire}). */
  private static ObjectNode retiredRefusal(JsonNode id) {
    return error(id, 409, "cookie_rotated", "this socket was opened with a cookie a login or a"
        + " logout retired; nothing was done: open a new socket, with the browser's new cookie");
  }

  /** The pages opened on this socket: bound to it in the registry until it closes. */
  Set<String> pages() {
    return Set.copyOf(pages);
  }

  @Override
  public void onWebSocketOpen(Session opened) {
    PageSockets.Refusal refusal = registry.opened(this);
    if (refusal != null) {
      ended.set(true); // never counted: nothing to count down at its close
      opened.close(refusal.code(), refusal.reason(), Callback.NOOP);
      return;
    }
    this.session = opened;
  }

  @Override
  public void onWebSocketText(String text) {
    JsonNode message;
    try {
      message = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      message = null;
    }
    if (message == null || !message.isObject()) {
      send(error(null, 400, "bad_message", "a message is one JSON object (docs/socket.md);"
          + " this one was not read and nothing was done"));
      return;
    }
    JsonNode id = message.get("id");
    String type = message.path("type").asText("");
    switch (type) {
      case "ping" -> send(withId(JSON.createObjectNode().put("type", "pong"), id));
      case "open" -> open(id, message.path("page").asText(null));
      case "call" -> call(id, message);
      default -> send(error(id, 400, "bad_message", "no message type '" + type + "': a message"
          + " is of type open, call or ping; nothing was done"));
    }
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    callback.succeed();
    Session current = session;
    if (current != null) {
      current.close(StatusCode.BAD_DATA, "binary messages are not part of the protocol",
          Callback.NOOP);
    }
  }

  @Override
  public void onWebSocketClose(int statusCode, String reason) {
    end();
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.log(Level.DEBUG, "a page socket of connection " + connection + " failed: " + cause);
    end();
  }

  /**
   * Ends the socket, once: marks it ended, then unbinds the pages it has (in that order, which
   * {@link #bind} relies on). Any thread.
   */
  private void end() {
    if (ended.compareAndSet(false, true)) {
      registry.closed(this, slow);
    }
  }

  private void open(JsonNode id, String page) {
    if (retired.get()) {
      send(retiredRefusal(id));
      return;
    }
    if (page == null || page.isBlank()) {
      send(error(id, 400, "bad_message", "an open names its page: {\"type\":\"open\","
          + "\"page\":ID}; nothing was bound"));
      return;
    }
    if (!connection.equals(upstream.connectionOfPage(page).orElse(null))) {
      send(error(id, 403, "foreign_page", "page '" + page + "' is not a page of this"
          + " connection; nothing was bound: open a page of your own (POST /api/pages) and name"
          + " it"));
      return;
    }
    if (!bind(page)) {
      LOG.log(Level.DEBUG, "a page socket of connection " + connection + " closed while page "
          + page + " was being opened on it; the page was not bound and the open was not"
          + " answered");
      return;
    }
    ObjectNode reply = reply(id, 200);
    reply.putObject("body").put("page", page);
    send(reply);
  }

  /**
   * Binds {@code page} to this socket in the registry unless the socket has ended, and says
   * whether it did; when it did not, nothing of it stays bound.
   *
   * <p>It races {@link #end}, which another thread may run meanwhile (a slow-reader close in
   * {@link #send}, for a push or a call's reply) and which unbinds the pages it reads from
   * {@link #pages} after it marked the socket ended. So the page joins {@code pages} first, is
   * bound next, and {@code ended} is read last. If it reads false, the end has not marked the
   * socket yet, so it reads {@code pages} after the bind and unbinds the page itself; if true, the
   * end may have read {@code pages} before the page joined or before it was bound, so the page is
   * unbound here (an unbind of both is harmless). Runs on Jetty's thread, one open at a time.
   */
  private boolean bind(String page) {
    pages.add(page);
    beforeBind.accept(page);
    registry.bind(page, this);
    if (ended.get() || retired.get()) {
      registry.unbind(page, this);
      return false;
    }
    lastPage = page;
    return true;
  }

  private void call(JsonNode id, JsonNode message) {
    if (id == null || id.isNull()) {
      send(error(null, 400, "bad_message", "a call carries an id, which its reply carries back;"
          + " nothing was done"));
      return;
    }
    String page = message.path("page").asText(lastPage);
    if (page == null || !pages.contains(page)) {
      send(error(id, 409, "channel_not_open", "page '" + page + "' has no channel on this"
          + " socket; nothing was done: send {\"type\":\"open\",\"page\":ID} first"));
      return;
    }
    String method = message.path("method").asText("GET").toUpperCase(Locale.ROOT);
    if (!METHOD.matcher(method).matches()) {
      send(error(id, 400, "bad_method", "a call's method is an HTTP method (GET, POST, …: letters"
          + " and digits, up to 20); got '" + clip(method) + "'; nothing was done"));
      return;
    }
    String path = applicationPath(message.path("path").asText(""));
    if (path == null) {
      send(error(id, 400, "bad_path", "a call's path is an absolute path, without query or"
          + " fragment (the query goes in \"query\"), that is not cryo's own (/_cryo/) once"
          + " decoded and normalised; got '" + clip(message.path("path").asText("")) + "';"
          + " nothing was done"));
      return;
    }
    if (inFlight.incrementAndGet() > limits.maxInFlight() || retired.get()) {
      send(retired.get() ? retiredRefusal(id) : error(id, 429, "too_many_calls", "this socket"
          + " has " + limits.maxInFlight() + " calls in flight already; this one was not run:"
          + " wait for a reply, then send it again"));
      callEnded(); // after the reply: the last call of a retired socket closes it
      return;
    }
    JsonNode body = message.get("body");
    List<Map.Entry<String, String>> headers = new ArrayList<>(handshakeHeaders);
    headers.add(new SimpleImmutableEntry<>(PAGE_HEADER, page));
    String requestId = RequestIds.mint(); // each call a request of its own
    headers.add(new SimpleImmutableEntry<>(RequestIds.HEADER_LOWER, requestId));
    byte[] bytes = new byte[0];
    if (body != null && !body.isNull()) {
      headers.add(new SimpleImmutableEntry<>("content-type", "application/json"));
      bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    }
    long taken = bytes.length;
    if (!budget.tryTake(taken)) {
      budget.refusedOne();
      send(error(id, 503, "bodies_over_budget", "the server holds " + budget.limit() + " bytes"
          + " of request bodies at once, and this call's body would take it past that; it was"
          + " not run: send it again in a moment"));
      callEnded();
      return;
    }
    Request request = new Request(connection, method, path, message.path("query").asText(""),
        headers, bytes, true, credential, null); // known at its handshake; rotates no cookie
    Thread.ofVirtual().name("cryo-socket-call").start(() -> {
      try {
        Reply reply = upstream.serve(request);
        send(replyOf(id, RuntimeReplies.forClient(reply, requestId), requestId));
        if (Reply.ROTATED_ENDED.equals(reply.header(Reply.ROTATED_HEADER))) {
          registry.retire(connection, null); // a logout by a socket call: its cookie is dead
        }
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, "request " + requestId + ": a socket call of connection "
            + connection + " failed", e);
        send(error(id, 500, "internal", "the call failed in the front; it may not have run"));
      } finally {
        budget.release(taken);
        callEnded();
      }
    });
  }

  /** An HTTP method: an RFC 9110 token, short. */
  private static final java.util.regex.Pattern METHOD =
      java.util.regex.Pattern.compile("[A-Z0-9!#$%&'*+.^_`|~-]{1,20}");

  /**
   * The path a socket call names, as an HTTP request's reaches the application: parsed as the
   * path of a request target, refused when it is ambiguous (an encoded slash or dot segment,
   * what Jetty refuses in a request line), carries a query, fragment or authority, or escapes
   * the root; then decoded and normalised, and refused when that is cryo's own
   * ({@code /_cryo} and below). Null when refused.
   */
  static String applicationPath(String raw) {
    if (raw == null || !raw.startsWith("/") || raw.startsWith("//")) {
      return null;
    }
    try {
      org.eclipse.jetty.http.HttpURI uri = org.eclipse.jetty.http.HttpURI.build(raw);
      if (uri.getQuery() != null || uri.getFragment() != null || uri.getHost() != null
          || uri.hasViolations() || uri.isAmbiguous()) {
        return null;
      }
      String decoded = uri.getCanonicalPath();
      if (decoded == null || !decoded.startsWith("/") || decoded.equals("/_cryo")
          || decoded.startsWith("/_cryo/")) {
        return null;
      }
      return decoded;
    } catch (IllegalArgumentException e) {
      return null; // malformed encoding
    }
  }

  private static String clip(String text) {
    return text.length() <= 80 ? text : text.substring(0, 80) + "…";
  }

  /**
   * For tests: runs {@code hook} with the page being opened, on the thread opening it, once the
   * page is one of {@link #pages} and before the registry binds it.
   */
  void beforeBind(Consumer<String> hook) {
    beforeBind = Objects.requireNonNull(hook);
  }

  /** Calls running now (for tests). */
  int inFlight() {
    return inFlight.get();
  }

  /**
   * Writes {@code message} to the socket unless its queue is full, in which case the socket is
   * closed and cut (its reader is too slow).
   *
   * @return whether it was handed to the socket
   */
  boolean send(String message) {
    Session current = session;
    if (current == null || !current.isOpen() || ended.get()) {
      return false;
    }
    long size = message.length();
    if (queued.addAndGet(size) > limits.maxQueuedChars()) {
      queued.addAndGet(-size);
      slow = true;
      LOG.log(Level.WARNING, "a page socket of connection " + connection + " fell more than "
          + limits.maxQueuedChars() + " characters behind; it is closed");
      current.close(StatusCode.POLICY_VIOLATION, "slow reader: the outbound queue is full",
          Callback.NOOP);
      current.disconnect();
      end();
      return false;
    }
    current.sendText(message, Callback.from(() -> queued.addAndGet(-size),
        failure -> queued.addAndGet(-size)));
    return true;
  }

  private boolean send(ObjectNode message) {
    return send(message.toString());
  }

  private static ObjectNode withId(ObjectNode node, JsonNode id) {
    if (id != null && !id.isNull()) {
      node.set("id", id);
    }
    return node;
  }

  private static ObjectNode reply(JsonNode id, int status) {
    ObjectNode node = withId(JSON.createObjectNode(), id);
    node.put("type", "reply");
    node.put("status", status);
    return node;
  }

  private static ObjectNode error(JsonNode id, int status, String code, String text) {
    ObjectNode node = reply(id, status);
    node.putObject("body").put("error", code).put("message", text);
    return node;
  }

  /** The reply to call {@code id}, which the front numbered {@code requestId} (a header). */
  private static ObjectNode replyOf(JsonNode id, Reply reply, String requestId) {
    ObjectNode node = reply(id, reply.status());
    ObjectNode headers = node.putObject("headers");
    headers.put(RequestIds.HEADER_LOWER, requestId);
    String type = "";
    for (Map.Entry<String, String> header : reply.headers()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (name.equals("set-cookie") || name.equals(RequestIds.HEADER_LOWER)) {
        continue; // a socket sets no cookie; the browser's stays as it is; the id is the front's
      }
      headers.put(name, header.getValue());
      if (name.equals("content-type")) {
        type = header.getValue().toLowerCase(Locale.ROOT);
      }
    }
    String text = new String(reply.body(), StandardCharsets.UTF_8);
    if (type.contains("json") && !text.isBlank()) {
      try {
        node.set("body", JSON.readTree(text));
        return node;
      } catch (IOException e) {
        // not JSON after all: sent as text
      }
    }
    node.put("body", text);
    return node;
  }
}
