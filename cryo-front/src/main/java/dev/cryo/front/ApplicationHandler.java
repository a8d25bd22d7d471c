package dev.cryo.front;

import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The handler of every path outside {@code /_cryo/}: refuses a new visitor past his address's
 * {@link NewVisitorBudget} with 429 before anything else ({@link NewVisitorGate}), reads the
 * request whole (bounded by {@code maxBody} each, 413 past it, and by the {@link BodyBudget}
 * across all requests, 503 past it), resolves its connection from the cookie, serves it through
 * the {@link Upstream}, and writes the reply.
 *
 * <p>Blocking: Jetty runs it on a virtual thread, which waits for the commander (holds, the
 * worker's reply) without holding a platform thread.
 */
final class ApplicationHandler extends Handler.Abstract {

  /** Headers that belong to one hop and never travel between the browser and a worker. */
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
      "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "content-length",
      "host");

  private final Upstream upstream;
  private final ConnectionCookie cookie;
  private final long maxBody;
  private final RequestListener listener;
  private final BodyBudget budget;
  private final PageSockets sockets;
  private final NewVisitorGate visitors;

  private static final System.Logger LOG = System.getLogger(ApplicationHandler.class.getName());

  ApplicationHandler(Upstream upstream, ConnectionCookie cookie, long maxBody,
      RequestListener listener, BodyBudget budget, PageSockets sockets, NewVisitorGate visitors) {
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.cookie = Objects.requireNonNull(cookie, "cookie");
    this.maxBody = maxBody;
    this.listener = Objects.requireNonNull(listener, "listener");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.sockets = Objects.requireNonNull(sockets, "sockets");
    this.visitors = Objects.requireNonNull(visitors, "visitors");
  }

  @Override
  public boolean handle(org.eclipse.jetty.server.Request request, Response response,
      Callback callback) throws IOException {
    String path = request.getHttpURI().getDecodedPath();
    if (path == null || path.startsWith("/_cryo/")) {
      return false; // cryo's own paths: another handler's, else Jetty's 404
    }
    long arrived = System.nanoTime();
    if (!visitors.budget().off() && !upstream.servesStatic(path) && !knownCookie(request)) {
      long wait = visitors.charge(addressOf(request));
      if (wait > 0) { // a new visitor past his address's budget: nothing read, minted or asked
        tooManyVisitors(response, callback, wait);
        answered(429, arrived);
        return true;
      }
    }
    long declared = request.getLength();
    if (declared > maxBody) {
      tooLarge(response, callback);
      answered(413, arrived);
      return true;
    }
    long taken = Math.max(declared, 0);
    if (!budget.tryTake(taken)) {
      busy(response, callback);
      answered(503, arrived);
      return true;
    }
    try {
      return serve(request, response, callback, path, arrived, taken);
    } finally {
      budget.release(taken);
    }
  }

  /** How many bytes of a chunked body are taken from the budget at a time. */
  private static final int CHUNK = 16 * 1024;

  /**
   * Reads the body (within the budget: {@code taken} bytes are held for it already), then serves
   * the request; the budget taken for the body beyond {@code taken} is given back before return.
   */
  private boolean serve(org.eclipse.jetty.server.Request request, Response response,
      Callback callback, String path, long arrived, long taken) throws IOException {
    long extra = 0;
    byte[] body;
    try {
      try (InputStream in = Content.Source.asInputStream(request)) {
        if (taken > 0) {
          body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
        } else {
          java.io.ByteArrayOutputStream read = new java.io.ByteArrayOutputStream();
          byte[] chunk = new byte[CHUNK];
          int n;
          while ((n = in.read(chunk)) != -1) {
            if (read.size() + n > maxBody) {
              read.write(chunk, 0, n);
              break;
            }
            if (!budget.tryTake(n)) {
              busy(response, callback);
              answered(503, arrived);
              return true;
            }
            extra += n;
            read.write(chunk, 0, n);
          }
          body = read.toByteArray();
        }
      }
      if (body.length > maxBody) {
        tooLarge(response, callback);
        answered(413, arrived);
        return true;
      }
      return serve(request, response, callback, path, arrived, body);
    } finally {
      budget.release(extra);
    }
  }

  private boolean serve(org.eclipse.jetty.server.Request request, Response response,
      Callback callback, String path, long arrived, byte[] body) {
    if (upstream.servesStatic(path)) { // the application's static files: no connection, no user
      String query = request.getHttpURI().getQuery();
      Reply asset = RuntimeReplies.forClient(upstream.serveStatic(request.getMethod(), path,
          query == null ? "" : query, headersOf(request)));
      answered(asset.status(), arrived);
      response.setStatus(asset.status());
      for (Map.Entry<String, String> header : asset.headers()) {
        String name = header.getKey().toLowerCase(Locale.ROOT);
        if (!HOP_BY_HOP.contains(name) && !name.equals("set-cookie")
            && !name.equals(RequestIds.HEADER_LOWER)) {
          response.getHeaders().add(header.getKey(), header.getValue());
        }
      }
      response.write(true, ByteBuffer.wrap(asset.body()), callback);
      return true;
    }
    String value = ConnectionCookie.read(org.eclipse.jetty.server.Request.getCookies(request));
    String connectionId = value == null ? null : ConnectionCookie.connectionOf(value);
    String credential = value == null ? null : ConnectionCookie.credentialOf(value);
    boolean minted = connectionId == null || !upstream.knowsConnection(connectionId);
    String secret = null;
    if (minted) {
      secret = ConnectionCookie.mint();
      connectionId = ConnectionCookie.connectionIdOf(secret);
      credential = null;
    }
    // The secret a login or a logout in this request rotates the cookie to; only its hash leaves.
    String successor = ConnectionCookie.mint();
    String query = request.getHttpURI().getQuery();
    String requestId = RequestIds.of(request);
    List<Map.Entry<String, String>> headers = headersOf(request);
    headers.add(new SimpleImmutableEntry<>(RequestIds.HEADER_LOWER, requestId));
    Reply served = upstream.serve(new Request(connectionId, request.getMethod(), path,
        query == null ? "" : query, headers, body, !minted, credential,
        ConnectionCookie.connectionIdOf(successor)));
    if (served.forgottenConnection()) { // lost since the cookie was read, or retired: a new one
      minted = true;
      secret = ConnectionCookie.mint();
      connectionId = ConnectionCookie.connectionIdOf(secret);
      served = upstream.serve(new Request(connectionId, request.getMethod(), path,
          query == null ? "" : query, headers, body, false, null,
          ConnectionCookie.connectionIdOf(successor)));
    }
    String rotation = served.header(Reply.ROTATED_HEADER);
    Reply reply = RuntimeReplies.forClient(served, headers);
    answered(reply.status(), arrived);
    response.setStatus(reply.status());
    for (Map.Entry<String, String> header : reply.headers()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (HOP_BY_HOP.contains(name) || name.equals(ROTATED)
          || name.equals(RequestIds.HEADER_LOWER)) {
        continue; // the framing, the runtime's word to the front, the front's own id (set)
      }
      if (name.equals("set-cookie")
          && header.getValue().trim().startsWith(ConnectionCookie.NAME + "=")) {
        strippedCookie(requestId); // the application never sets cryo's cookie
        continue;
      }
      response.getHeaders().add(header.getKey(), header.getValue());
    }
    if (Reply.ROTATED_LOGIN.equals(rotation)) {
      response.getHeaders().add(HttpHeader.SET_COOKIE,
          cookie.setCookie(ConnectionCookie.rotated(connectionId, successor)));
      sockets.retire(connectionId, ConnectionCookie.connectionIdOf(successor));
    } else if (Reply.ROTATED_ENDED.equals(rotation)) {
      response.getHeaders().add(HttpHeader.SET_COOKIE, cookie.clear());
      sockets.retire(connectionId, null);
    } else if (minted) {
      response.getHeaders().add(HttpHeader.SET_COOKIE, cookie.setCookie(secret));
    }
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
    return true;
  }

  /** {@link Reply#ROTATED_HEADER}, lower case. */
  private static final String ROTATED = Reply.ROTATED_HEADER.toLowerCase(Locale.ROOT);

  /** Whether the stripping of an application's {@code Set-Cookie} of cryo's cookie was logged. */
  private static final java.util.concurrent.atomic.AtomicBoolean STRIPPED_LOGGED =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Says once per process that an application's {@code Set-Cookie} of cryo's cookie was removed. */
  private static void strippedCookie(String requestId) {
    if (STRIPPED_LOGGED.compareAndSet(false, true)) {
      LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": the application answered"
          + " with a Set-Cookie of " + ConnectionCookie.NAME + ", the runtime's own cookie; it was removed from the reply"
          + " (and will be each time, said only once): the browser kept its cookie. To end a"
          + " connection call call.logout(), to drop a user call.forget()");
    }
  }

  private void answered(int status, long arrived) {
    Refusals.answered(listener, status, System.nanoTime() - arrived);
  }

  /**
   * The request's headers as they reach a worker: no hop-by-hop header, no cryo cookie, no
   * {@value RequestIds#HEADER} of the client's (the front adds its own: {@link RequestIds}).
   * A new list, the caller's to add to.
   */
  static List<Map.Entry<String, String>> headersOf(
      org.eclipse.jetty.server.Request request) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (HttpField field : request.getHeaders()) {
      String name = field.getLowerCaseName();
      if (HOP_BY_HOP.contains(name) || name.startsWith("sec-websocket-")
          || name.equals(RequestIds.HEADER_LOWER)) {
        continue;
      }
      String value = field.getValue();
      if (name.equals("cookie")) {
        value = ConnectionCookie.strip(value);
        if (value == null) {
          continue;
        }
      }
      headers.add(new SimpleImmutableEntry<>(name, value));
    }
    return headers;
  }

  private void busy(Response response, Callback callback) {
    budget.refusedOne();
    Refusals.write(response, callback, 503, "bodies_over_budget", "the server holds "
        + budget.limit() + " bytes of request bodies at once, and this body would take it past"
        + " that; nothing of it reached the application: send it again in a moment (the"
        + " operator's setting is --max-buffered-bodies)", RETRY_AFTER_SECONDS);
  }

  /** The {@code Retry-After} of a refusal for the body budget. */
  static final long RETRY_AFTER_SECONDS = 1;

  /** Whether the request's cookie names a connection the run knows: no new visitor. */
  private boolean knownCookie(org.eclipse.jetty.server.Request request) {
    String value = ConnectionCookie.read(org.eclipse.jetty.server.Request.getCookies(request));
    String connectionId = value == null ? null : ConnectionCookie.connectionOf(value);
    return connectionId != null && upstream.knowsConnection(connectionId);
  }

  private static java.net.InetAddress addressOf(org.eclipse.jetty.server.Request request) {
    if (request.getConnectionMetaData().getRemoteSocketAddress()
        instanceof java.net.InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress();
    }
    return java.net.InetAddress.getLoopbackAddress(); // a Unix socket or unknown: one for all
  }

  private void tooManyVisitors(Response response, Callback callback, long wait) {
    Refusals.write(response, callback, 429, "too_many_new_visitors", "this address made new"
        + " visitors faster than the server admits (" + visitors.budget() + " a second, new"
        + " visitors and how many at once): a request without the cookie the server gave, or"
        + " with one it does not know, makes a new visitor. Nothing was created and nothing"
        + " reached the application: send the cookie of an earlier answer with each request, or"
        + " try again in " + wait + " s (the operator's setting is --new-visitors-per-address)",
        wait);
  }

  private void tooLarge(Response response, Callback callback) {
    Refusals.write(response, callback, 413, "body_too_large", "the request's body is over "
        + maxBody + " bytes; nothing reached the application: send less, or raise --max-body", -1);
  }
}
