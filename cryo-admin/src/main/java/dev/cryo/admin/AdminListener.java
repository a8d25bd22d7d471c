package dev.cryo.admin;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The admin port: a Jetty server of its own (its own connector, thread pool and handler), apart
 * from the public port, so nothing of the application's traffic or limits reaches it and nothing
 * of it reaches the application. Made by {@link Admin#listen}. Thread-safe once started;
 * {@link #close()} stops it (live streams are cut).
 */
public final class AdminListener implements AutoCloseable {

  private final Server server;
  private final ServerConnector connector;
  private final String bind;

  AdminListener(String bind, int port, Handler handler) {
    this.bind = Objects.requireNonNull(bind, "bind");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("a port is 0 to 65535, not " + port);
    }
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("cryo-admin");
    threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor(
        "cryo-admin-v"));
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    this.connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(bind);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(handler);
  }

  /**
   * Opens the port.
   *
   * @throws AdminException {@value AdminException#PORT_UNAVAILABLE} when it cannot be bound
   */
  void start() {
    try {
      server.start();
    } catch (Exception e) {
      close();
      throw new AdminException(AdminException.PORT_UNAVAILABLE, "the admin listener could not"
          + " listen on " + bind + ":" + connector.getPort() + " (" + e.getMessage() + "); it"
          + " was not started: free the port or pick another with --admin-port", e);
    }
  }

  /** The port listened on (the real one when 0 was asked for). */
  public int port() {
    return connector.getLocalPort();
  }

  /** The address listened on. */
  public InetSocketAddress address() {
    return new InetSocketAddress(bind, port());
  }

  /** Stops listening; idempotent. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      // a server that failed to start or is stopped already: nothing left to release
    }
  }
}
