package dev.cryo.front;

import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.server.WebSocketCreator;

/**
 * The handshake of {@code /_cryo/ws}, in this order:
 * <ol>
 *   <li>the Origin gate: a handshake whose {@code Origin} is neither the page's own (the
 *       {@code Host} it was sent to) nor one of the allowed origins ({@link OriginPolicy}) is
 *       refused with HTTP 403 — no
 *       cross-site WebSocket hijacking. A handshake without {@code Origin} comes from no browser
 *       page and passes (a browser always sends it);
 *   <li>while the run admits no new work ({@link Upstream#admits()}), it is accepted and closed
 *       with 1013 (try again later);
 *   <li>without the connection cookie, or with one whose connection the run does not know, or one
 *       a login or a logout retired ({@link Upstream#provesConnection}: the worker holding the
 *       connection is asked), it is accepted and closed with 1008 (policy violation): a socket
 *       never mints a connection, and a retired cookie reaches no page of it, pushes included;
 *   <li>otherwise a {@link PageSocket} of that connection.
 * </ol>
 * Thread-safe.
 */
final class SocketGate implements WebSocketCreator {

  /** The socket's path on the public port. */
  static final String PATH = "/_cryo/ws";

  private final Upstream upstream;
  private final PageSockets registry;
  private final SocketLimits limits;
  private final OriginPolicy origins;
  private final BodyBudget budget;

  SocketGate(Upstream upstream, PageSockets registry, SocketLimits limits, OriginPolicy origins,
      BodyBudget budget) {
    this.budget = Objects.requireNonNull(budget);
    this.upstream = Objects.requireNonNull(upstream);
    this.registry = Objects.requireNonNull(registry);
    this.limits = Objects.requireNonNull(limits);
    this.origins = Objects.requireNonNull(origins);
  }

  @Override
  public Object createWebSocket(ServerUpgradeRequest request, ServerUpgradeResponse response,
      Callback callback) {
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && !origins.allows(origin, request)) {
      Response.writeError(request, response, callback, 403, "the origin " + origin + " may not"
          + " open a socket here; nothing was opened: serve the page from this host, or list the"
          + " origin with --allowed-origin");
      return null;
    }
    if (!upstream.admits()) {
      return new RefusedSocket(StatusCode.TRY_AGAIN_LATER, "not running: try again later");
    }
    String secret = ConnectionCookie.read(Request.getCookies(request));
    String connection = secret == null ? null : ConnectionCookie.connectionOf(secret);
    if (connection == null || !upstream.knowsConnection(connection)
        || !upstream.provesConnection(connection, ConnectionCookie.credentialOf(secret))) {
      return new RefusedSocket(StatusCode.POLICY_VIOLATION, secret == null
          ? "no connection cookie: load a page first" : "unknown connection: load a page first");
    }
    return new PageSocket(connection, ConnectionCookie.credentialOf(secret),
        ApplicationHandler.headersOf(request), registry, upstream, limits, budget);
  }
}
