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
 * The handler of every path outside {@code /_cryo/}: reads the request whole (bounded), resolves
 * its connection from the cookie, serves it through the {@link Upstream}, and writes the reply.
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

  ApplicationHandler(Upstream upstream, ConnectionCookie cookie, long maxBody,
      RequestListener listener) {
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.cookie = Objects.requireNonNull(cookie, "cookie");
    this.maxBody = maxBody;
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public boolean handle(org.eclipse.jetty.server.Request request, Response response,
      Callback callback) throws IOException {
    String path = request.getHttpURI().getDecodedPath();
    if (path == null || path.startsWith("/_cryo/")) {
      return false; // cryo's own paths: another handler's, else Jetty's 404
    }
    long arrived = System.nanoTime();
    long declared = request.getLength();
    if (declared > maxBody) {
      tooLarge(response, callback);
      answered(413, arrived);
      return true;
    }
    byte[] body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
    }
    if (body.length > maxBody) {
      tooLarge(response, callback);
      answered(413, arrived);
      return true;
    }
    String secret = ConnectionCookie.read(org.eclipse.jetty.server.Request.getCookies(request));
    String connectionId = secret == null ? null : ConnectionCookie.connectionIdOf(secret);
    boolean minted = connectionId == null || !upstream.knowsConnection(connectionId);
    if (minted) {
      secret = ConnectionCookie.mint();
      connectionId = ConnectionCookie.connectionIdOf(secret);
    }
    String query = request.getHttpURI().getQuery();
    Reply reply = upstream.serve(new Request(connectionId, request.getMethod(), path,
        query == null ? "" : query, headersOf(request), body));
    answered(reply.status(), arrived);
    response.setStatus(reply.status());
    for (Map.Entry<String, String> header : reply.headers()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (HOP_BY_HOP.contains(name) || (name.equals("set-cookie")
          && header.getValue().trim().startsWith(ConnectionCookie.NAME + "="))) {
        continue; // the application never sets cryo's cookie, nor the framing
      }
      response.getHeaders().add(header.getKey(), header.getValue());
    }
    if (minted) {
      response.getHeaders().add(HttpHeader.SET_COOKIE, cookie.setCookie(secret));
    }
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
    return true;
  }

  private void answered(int status, long arrived) {
    Refusals.answered(listener, status, System.nanoTime() - arrived);
  }

  /** The request's headers as they reach a worker: no hop-by-hop header, no cryo cookie. */
  static List<Map.Entry<String, String>> headersOf(
      org.eclipse.jetty.server.Request request) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (HttpField field : request.getHeaders()) {
      String name = field.getLowerCaseName();
      if (HOP_BY_HOP.contains(name) || name.startsWith("sec-websocket-")) {
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

  private void tooLarge(Response response, Callback callback) {
    Refusals.write(response, callback, 413, "body_too_large", "the request's body is over "
        + maxBody + " bytes; nothing reached the application: send less, or raise --max-body", -1);
  }
}
