package dev.cryo.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves the admin paths — {@value #STATUS_PAGE} (the live page), {@value #STATUS_STREAM} (its
 * server-sent events), {@value #STATUS_JSON} and {@value #METRICS} — and declines every other path
 * (the next handler's, else 404).
 *
 * <p>Access, decided before anything is read or written:
 * <ul>
 *   <li>on the admin port without a token, a request whose {@code Host} is a name other than
 *       localhost is 403 {@code host_not_allowed} (DNS rebinding: a page elsewhere pointing its
 *       own name at this machine would read the status, user names included);
 *   <li>on the admin port without a token: served (the port is loopback unless a token is set);
 *   <li>with a token, on either port: served only to a request proving it (see
 *       {@link AdminToken}); else 401 with {@code WWW-Authenticate} for both schemes, and nothing
 *       of the run in the body;
 *   <li>on the public port without a token: declined, so the path is a 404 like any other
 *       unknown path of cryo's (this handler is not even mounted there then).
 * </ul>
 * Only GET and HEAD are served: another method is 405. A HEAD is answered with the headers a GET
 * would get and no body (Jetty's rules); on the live stream it ends there, so it holds no stream.
 *
 * <p>Blocking: runs on a virtual thread; a live stream holds its thread while it lasts.
 */
final class AdminHandler extends Handler.Abstract {

  static final String STATUS_PAGE = "/_cryo/status";
  static final String STATUS_STREAM = "/_cryo/status/stream";
  static final String STATUS_JSON = "/_cryo/status.json";
  static final String METRICS = "/_cryo/metrics";

  private static final String PAGE_SECURITY = "default-src 'none'; script-src 'unsafe-inline';"
      + " style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:;"
      + " frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

  private final boolean publicPort;
  private final AdminToken token;
  private final StatusView view;
  private final RunMetrics metrics;
  private final LiveStreams streams;
  private final byte[] page;

  AdminHandler(boolean publicPort, AdminToken token, StatusView view, RunMetrics metrics,
      LiveStreams streams) {
    if (publicPort && token == null) {
      throw new IllegalArgumentException("the admin paths are served on the public port only"
          + " with a token");
    }
    this.publicPort = publicPort;
    this.token = token;
    this.view = Objects.requireNonNull(view, "view");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.streams = Objects.requireNonNull(streams, "streams");
    this.page = resource("status.html");
  }

  private static byte[] resource(String name) {
    try (InputStream in = AdminHandler.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the resource " + name + " is missing from cryo-admin's"
            + " jar: the build is broken");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = request.getHttpURI().getDecodedPath();
    if (path == null || !(path.equals(STATUS_PAGE) || path.equals(STATUS_STREAM)
        || path.equals(STATUS_JSON) || path.equals(METRICS))) {
      return false;
    }
    if (publicPort && token == null) {
      return false; // never reached: not mounted on the public port without a token
    }
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    if (!publicPort && token == null && !addressedByAddress(request)) {
      response.setStatus(403);
      json(response, callback, "{\"error\":\"host_not_allowed\",\"message\":\"without an"
          + " admin token the admin listener answers only requests sent to an address"
          + " (127.0.0.1, [::1]) or to localhost, not to a name: a page of another site can"
          + " point a name of its own at this machine (DNS rebinding); nothing was served: open"
          + " the status page by its address, or set --admin-token\"}");
      return true;
    }
    if (token != null && !token.acceptsAuthorization(
        request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
      response.setStatus(401);
      response.getHeaders().add(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"cryo admin\"");
      response.getHeaders().add(HttpHeader.WWW_AUTHENTICATE,
          "Basic realm=\"cryo admin\", charset=\"UTF-8\"");
      json(response, callback, "{\"error\":\"admin_token_required\",\"message\":\"this path"
          + " needs the admin token: send Authorization: Bearer TOKEN (or Basic with the token as"
          + " the password); nothing was served\"}");
      return true;
    }
    String method = request.getMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      response.setStatus(405);
      response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
      json(response, callback, "{\"error\":\"method_not_allowed\",\"message\":\"" + path
          + " is read with GET only; nothing was changed\"}");
      return true;
    }
    switch (path) {
      case STATUS_JSON -> write(response, callback, "application/json", view.statusJson());
      case METRICS -> write(response, callback, RunMetrics.CONTENT_TYPE,
          metrics.scrape().getBytes(StandardCharsets.UTF_8));
      case STATUS_PAGE -> {
        response.getHeaders().put("Content-Security-Policy", PAGE_SECURITY);
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        write(response, callback, "text/html; charset=utf-8", page);
      }
      default -> {
        if (method.equals("HEAD")) {
          streams.head(response, callback);
        } else {
          streams.serve(response, callback);
        }
      }
    }
    return true;
  }

  private static final java.util.regex.Pattern IPV4 =
      java.util.regex.Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");

  /**
   * Whether the request's {@code Host} names an IP address or localhost: what a browser sends to
   * the admin port unless a page of another site pointed a name of its own at it (DNS rebinding),
   * which a name the operator never gave cryo would be. No Host (HTTP/1.0) is an address.
   */
  static boolean addressedByAddress(Request request) {
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (host == null) {
      return true;
    }
    String name;
    try {
      name = new org.eclipse.jetty.util.HostPort(host.trim()).getHost();
    } catch (IllegalArgumentException e) {
      return false;
    }
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    return name.startsWith("[") || IPV4.matcher(name).matches() || lower.equals("localhost")
        || lower.endsWith(".localhost");
  }

  private static void json(Response response, Callback callback, String body) {
    write(response, callback, "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void write(Response response, Callback callback, String type, byte[] body) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
