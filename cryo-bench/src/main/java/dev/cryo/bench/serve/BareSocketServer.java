package dev.cryo.bench.serve;

import java.time.Duration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The floor of {@link IdleSocketsBench}: a bare Jetty 12 WebSocket server on the same thread pool,
 * connector and container settings as cryo's front (virtual threads, a 10-minute idle timeout),
 * whose sockets keep nothing but Jetty's own session: it answers {@code open} with
 * {@code {"type":"reply","status":200}} and any other message with {@code {"type":"pong"}}. What
 * one idle socket costs here is what any Jetty WebSocket server pays. Thread-safe.
 */
final class BareSocketServer implements AutoCloseable {

  /** The socket's path: {@code ws://127.0.0.1:PORT/ws}. */
  static final String PATH = "/ws";

  private final Server server;
  private final ServerConnector connector;

  /** Starts the server on a free loopback port. */
  BareSocketServer() throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("bare-ws");
    threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("bare-ws-v"));
    server = new Server(threads);
    connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(WebSocketUpgradeHandler.from(server, container -> {
      container.setIdleTimeout(Duration.ofMinutes(10));
      container.addMapping(PATH, (request, response, callback) -> new Echo());
    }));
    server.start();
  }

  /** The port listened on. */
  int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  /** One socket: its session, and an answer to each message. */
  public static final class Echo implements Session.Listener.AutoDemanding {
    private volatile Session session;

    @Override
    public void onWebSocketOpen(Session opened) {
      session = opened;
    }

    @Override
    public void onWebSocketText(String text) {
      session.sendText(text.contains("\"open\"") ? "{\"type\":\"reply\",\"status\":200}"
          : "{\"type\":\"pong\"}", Callback.NOOP);
    }

    @Override
    public void onWebSocketError(Throwable cause) {
      // a client gone without a close frame: nothing to keep, as cryo's front keeps nothing
    }
  }
}
