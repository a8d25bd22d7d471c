package dev.cryo.front;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The run's public HTTP port: Jetty 12 (core handlers, no servlets) with its blocking work on
 * virtual threads, serving every path outside {@code /_cryo/} through an {@link Upstream}, and the
 * page sockets at {@code /_cryo/ws} (docs/socket.md): the browsers' WebSockets, their pages' calls
 * and the run's pushes; and the browser client that speaks to them, {@code /_cryo/cryo.js}
 * (docs/client.md), served by the front itself.
 *
 * <pre>{@code
 * try (Front front = Front.builder(Upstream.of(commander)).port(8080).build()) {
 *   front.start();
 *   System.out.println("http://127.0.0.1:" + front.port() + "/");
 * }
 * }</pre>
 *
 * <p>Thread-safe once started; {@link #close()} stops the port (requests in progress are cut).
 */
public final class Front implements AutoCloseable {

  private final Server server;
  private final ServerConnector connector;
  private final String bind;
  private final PageSockets sockets;
  private final BodyBudget budget;
  private final ConnectionGate connections;
  private final SlowRequests slowRequests;
  private final ClientLimits clientLimits;
  private final NewVisitorGate visitors;

  /**
   * How long a page socket may stay silent before Jetty closes it; the demo's page pings far more
   * often. Long, so a hibernating user's tabs keep their sockets.
   */
  static final Duration SOCKET_IDLE = Duration.ofMinutes(10);

  /** The default of {@link Builder#maxBufferedBodies}: 64 MiB. */
  public static final long DEFAULT_MAX_BUFFERED_BODIES = 64L << 20;

  private Front(Builder builder) {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("cryo-front");
    threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor(
        "cryo-front-v"));
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    this.connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(builder.bind);
    connector.setPort(builder.port);
    server.addConnector(connector);
    ClientLimits clients = builder.clientLimits;
    this.connections = new ConnectionGate(clients.maxConnections(),
        clients.maxConnectionsPerAddress());
    this.slowRequests = new SlowRequests(clients.requestTimeout());
    connector.addBean(connections);
    connector.addBean(slowRequests);
    this.clientLimits = clients;
    this.sockets = new PageSockets(clients.maxSockets(), clients.maxSocketsPerConnection());
    builder.upstream.pushSink(sockets);
    OriginPolicy origins = new OriginPolicy(builder.allowedOrigins);
    this.budget = new BodyBudget(Math.max(builder.maxBufferedBodies, builder.maxBody));
    SocketGate gate = new SocketGate(builder.upstream, sockets, builder.socketLimits, origins,
        budget);
    SocketLimits limits = builder.socketLimits;
    WebSocketUpgradeHandler upgrade = WebSocketUpgradeHandler.from(server, container -> {
      container.setMaxTextMessageSize(limits.maxMessageChars());
      container.setMaxBinaryMessageSize(1024);
      container.setIdleTimeout(SOCKET_IDLE);
      container.addMapping(SocketGate.PATH, gate);
    });
    this.visitors = new NewVisitorGate(builder.newVisitors);
    Handler.Sequence handlers = new Handler.Sequence(new ApplicationHandler(builder.upstream,
        new ConnectionCookie(builder.secureCookie), builder.maxBody, builder.requestListener,
        budget, sockets, visitors), new ClientScript());
    builder.cryoHandlers.forEach(handlers::addHandler); // after the application: /_cryo/ only
    upgrade.setHandler(new CrossSiteGate(origins, builder.requestListener, handlers));
    server.setHandler(new RequestIds(upgrade)); // outermost: every answer names its request
    server.setErrorHandler(new JsonErrors()); // Jetty's own refusals: JSON, as the front's
    this.bind = builder.bind;
  }

  /** A builder of a front serving through {@code upstream}. */
  public static Builder builder(Upstream upstream) {
    return new Builder(upstream);
  }

  /**
   * Opens the port and starts serving.
   *
   * @throws FrontException when the port cannot be bound (in use, not allowed)
   */
  public void start() {
    try {
      server.start();
    } catch (Exception e) {
      close();
      throw new FrontException("the front could not listen on " + bind + ":"
          + connector.getPort() + " (" + e.getMessage() + "); nothing was started: free the port"
          + " or pick another with --port", e);
    }
  }

  /** The port listened on (the real one when 0 was asked for); valid once started. */
  public int port() {
    return connector.getLocalPort();
  }

  /** The page sockets' counts (open, pushes delivered and undelivered), read-only. */
  public SocketStats sockets() {
    return sockets;
  }

  /** The limits' settings, what they hold and what they refused, read-only. */
  public LimitStats limits() {
    return new LimitStats() {
      @Override
      public long bodyBytesLimit() {
        return budget.limit();
      }

      @Override
      public long bodyBytesHeld() {
        return budget.held();
      }

      @Override
      public long bodiesRefused() {
        return budget.refused();
      }

      @Override
      public ClientLimits clients() {
        return clientLimits;
      }

      @Override
      public int connectionsOpen() {
        return connections.open();
      }

      @Override
      public long connectionsRefused() {
        return connections.refused();
      }

      @Override
      public long slowRequestsCut() {
        return slowRequests.cut();
      }

      @Override
      public long socketsRefused() {
        return sockets.refused();
      }

      @Override
      public NewVisitorBudget newVisitors() {
        return visitors.budget();
      }

      @Override
      public long newVisitorsRefused() {
        return visitors.refused();
      }
    };
  }

  /** The address listened on. */
  public InetSocketAddress address() {
    return new InetSocketAddress(bind, port());
  }

  /** Stops listening; idempotent. */
  @Override
  public void close() {
    slowRequests.close();
    try {
      server.stop();
    } catch (Exception e) {
      // stopping a server that failed to start or is already stopped: nothing left to release
    }
  }

  /**
   * Builds a {@link Front}. Defaults: port 8080, bound to 127.0.0.1, bodies up to 1 MiB each and
   * 64 MiB held at once, cookie without {@code Secure}. Not thread-safe.
   */
  public static final class Builder {
    private final Upstream upstream;
    private int port = 8080;
    private String bind = "127.0.0.1";
    private long maxBody = 1 << 20;
    private long maxBufferedBodies = DEFAULT_MAX_BUFFERED_BODIES;
    private boolean secureCookie;
    private RequestListener requestListener = RequestListener.NONE;
    private final List<Handler> cryoHandlers = new ArrayList<>();
    private SocketLimits socketLimits = SocketLimits.DEFAULTS;
    private List<String> allowedOrigins = List.of();
    private ClientLimits clientLimits = ClientLimits.DEFAULTS;
    private NewVisitorBudget newVisitors = NewVisitorBudget.OFF;

    private Builder(Upstream upstream) {
      this.upstream = Objects.requireNonNull(upstream, "upstream");
    }

    /** The port, 0 for any free one; @return this builder. */
    public Builder port(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("a port is 0 to 65535, not " + value);
      }
      this.port = value;
      return this;
    }

    /** The address to bind; @return this builder. */
    public Builder bind(String value) {
      this.bind = Objects.requireNonNull(value, "bind");
      return this;
    }

    /** The largest request body in bytes; @return this builder. */
    public Builder maxBody(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("the body limit is at least 0, not " + value);
      }
      this.maxBody = value;
      return this;
    }

    /**
     * The request-body bytes held at once across all requests and socket calls (default
     * {@value Front#DEFAULT_MAX_BUFFERED_BODIES}, 64 MiB; raised to {@link #maxBody} if lower, so
     * one body always fits): a body that would take them past it is refused with 503 and
     * {@code Retry-After} before it is read. {@code @return} this builder.
     */
    public Builder maxBufferedBodies(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("the body budget is at least 0, not " + value);
      }
      this.maxBufferedBodies = value;
      return this;
    }

    /** Whether the cookie is {@code Secure} (served behind TLS); @return this builder. */
    public Builder secureCookie(boolean value) {
      this.secureCookie = value;
      return this;
    }

    /**
     * Who sees each application request answered (default {@link RequestListener#NONE});
     * {@code @return} this builder.
     */
    public Builder requestListener(RequestListener value) {
      this.requestListener = Objects.requireNonNull(value, "requestListener");
      return this;
    }

    /**
     * What one client and all of them may hold: connections in total and per address, the
     * request timeout, page sockets in total and per connection (default
     * {@link ClientLimits#DEFAULTS}); {@code @return} this builder.
     */
    public Builder clientLimits(ClientLimits value) {
      this.clientLimits = Objects.requireNonNull(value, "clientLimits");
      return this;
    }

    /**
     * How many new visitors — requests without a known connection cookie, each a new guest — one
     * client address may make (default {@link NewVisitorBudget#OFF}: a front embedded in a program
     * or a benchmark, whose clients may all share one address, sets its own; {@code cryo serve}
     * sets {@link NewVisitorBudget#DEFAULT}); past it, 429 with {@code Retry-After}, nothing made.
     * {@code @return} this builder.
     */
    public Builder newVisitors(NewVisitorBudget value) {
      this.newVisitors = Objects.requireNonNull(value, "newVisitors");
      return this;
    }

    /** The bounds of each page socket; @return this builder. */
    public Builder socketLimits(SocketLimits value) {
      this.socketLimits = Objects.requireNonNull(value, "socketLimits");
      return this;
    }

    /**
     * Adds a handler of cryo's own paths on this port: it is offered only requests under
     * {@code /_cryo/} (the application's handler declines them first), in the order added, and
     * returns false for a path it does not serve (then the next, else 404). The admin listener's
     * paths come here when they are served on the public port. {@code @return} this builder.
     */
    public Builder addCryoHandler(Handler handler) {
      cryoHandlers.add(Objects.requireNonNull(handler, "handler"));
      return this;
    }

    /**
     * Origins besides the page's own ({@code https://app.example}, exactly) whose pages may open a
     * page socket and send state-changing requests (anything but GET, HEAD and OPTIONS; see
     * {@link CrossSiteGate}); default none. {@code @return} this builder.
     */
    public Builder allowedOrigins(List<String> value) {
      this.allowedOrigins = List.copyOf(value);
      return this;
    }

    /** The front; the builder may be reused. */
    public Front build() {
      return new Front(this);
    }
  }
}
