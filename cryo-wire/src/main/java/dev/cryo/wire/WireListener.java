package dev.cryo.wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The commander's side of one worker's socket: binds, accepts exactly one connection. Every later
 * connection is accepted and closed at once (refused, logged), so a stray or hostile process
 * cannot take the worker's place. Thread-safe; an acceptor virtual thread runs until {@link
 * #close()}.
 */
public final class WireListener implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(WireListener.class.getName());

  /**
   * The longest path bound: sun_path holds 108 bytes, its terminating zero included, and the JDK
   * refuses to bind 107 bytes already (it keeps one more byte), so 106 is the longest that works.
   */
  static final int MAX_PATH_BYTES = 106;
  /** S_IFMT and S_IFSOCK of stat(2): the file type bits, and those of a socket. */
  private static final int TYPE_MASK = 0170000;
  private static final int TYPE_SOCKET = 0140000;

  private final Path socket;
  private final ServerSocketChannel server;
  private final CompletableFuture<SocketChannel> first = new CompletableFuture<>();
  private final AtomicBoolean claimed = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  private WireListener(Path socket, ServerSocketChannel server) {
    this.socket = socket;
    this.server = server;
  }

  /**
   * Binds a Unix socket at path (parent made 0700 if missing; a stale socket file unlinked). A
   * path of 108 bytes or more is refused with a clear IllegalArgumentException (so is one of 107,
   * which the JDK cannot bind either: 106 bytes is the longest path).
   *
   * @param socket where to bind
   * @return the listener, accepting
   * @throws IllegalArgumentException when the path is 107 bytes or longer
   * @throws IOException when something other than a stale socket sits at the path, a live
   *     listener serves it, or the bind fails
   */
  public static WireListener bind(Path socket) throws IOException {
    UnixDomainSocketAddress address = address(socket);
    Path parent = socket.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      Files.createDirectories(parent,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    removeStale(socket, address);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(address);
    } catch (IOException e) {
      server.close();
      throw new IOException("cannot bind the wire's socket at " + socket + " (" + e.getMessage()
          + "); nothing was bound; check the directory's permissions", e);
    }
    WireListener listener = new WireListener(socket, server);
    Thread.ofVirtual().name("wire-listener-" + socket.getFileName()).start(listener::acceptLoop);
    return listener;
  }

  /**
   * Waits up to timeout for the first connection; later connections are accepted and closed at
   * once (refused, logged). Throws WireTimeoutException when none came.
   *
   * @param timeout how long to wait
   * @return the first connection, connected and blocking, for {@link Wire#open}
   * @throws WireTimeoutException when no connection came in time (the listener keeps listening)
   * @throws IllegalStateException when the first connection was already taken
   * @throws IOException when the listener was closed or its accept failed
   */
  public SocketChannel accept(Duration timeout) throws IOException {
    if (claimed.get()) {
      throw new IllegalStateException("the wire listener at " + socket
          + " already gave out its one connection");
    }
    try {
      SocketChannel channel = first.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (!claimed.compareAndSet(false, true)) {
        throw new IllegalStateException("the wire listener at " + socket
            + " already gave out its one connection");
      }
      return channel;
    } catch (TimeoutException e) {
      throw new WireTimeoutException("no connection came to the wire at " + socket + " within "
          + timeout + "; the listener keeps listening; close it to give the peer up");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for a connection at " + socket, e);
    } catch (ExecutionException e) {
      throw new IOException("the wire listener at " + socket + " accepts nothing: "
          + e.getCause().getMessage(), e.getCause());
    }
  }

  /**
   * Completes once the first connection came, without taking it ({@link #accept} does); fails
   * when the listener was closed or its accept failed first. A connection that came but was never
   * taken is closed by {@link #close()}, so a caller that gives up after this completed leaks
   * nothing. Thread-safe.
   */
  public CompletableFuture<Void> connected() {
    return first.thenApply(channel -> null);
  }

  /** The socket's path. */
  public Path path() {
    return socket;
  }

  /**
   * Stops listening and unlinks the socket file. A first connection nobody took is closed; one
   * that was taken stays open (its wire owns it). Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, () -> "closing the wire listener at " + socket + " failed: " + e);
    }
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      LOG.log(Level.WARNING, () -> "the wire's socket file " + socket + " could not be removed: "
          + e + "; the next bind there removes it as stale");
    }
    first.completeExceptionally(new ClosedChannelException());
    if (!claimed.get() && first.isDone() && !first.isCompletedExceptionally()) {
      closeQuietly(first.join());
    }
  }

  private void acceptLoop() {
    while (true) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          LOG.log(Level.WARNING, () -> "the wire listener at " + socket + " stopped: " + e);
          first.completeExceptionally(e);
        }
        return;
      }
      if (!first.complete(channel)) {
        LOG.log(Level.WARNING, () -> "refused a second connection to the wire at " + socket
            + ": closed at once; the first connection is kept");
        closeQuietly(channel);
      } else if (closed.get()) {
        closeQuietly(channel);
      }
    }
  }

  /**
   * The address of a socket path, refusing paths the kernel cannot hold.
   *
   * @throws IllegalArgumentException when the path is 107 bytes or longer
   */
  static UnixDomainSocketAddress address(Path socket) {
    int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PATH_BYTES) {
      throw new IllegalArgumentException("the wire's socket path " + socket + " is " + bytes
          + " bytes; a Unix socket path can be " + MAX_PATH_BYTES + " bytes at most (sun_path holds"
          + " 108 with its zero, the JDK keeps one more); nothing was bound or connected; use a"
          + " shorter name or a private directory nearer the root");
    }
    return UnixDomainSocketAddress.of(socket);
  }

  /** Unlinks a socket file nobody listens on; refuses anything else at the path. */
  private static void removeStale(Path socket, UnixDomainSocketAddress address)
      throws IOException {
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    int mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    if ((mode & TYPE_MASK) != TYPE_SOCKET) {
      throw new FileAlreadyExistsException(socket.toString(), null, "something that is not a"
          + " socket sits where the wire's socket goes; it was kept; remove it or pick another"
          + " path");
    }
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.connect(address);
      throw new IOException("another listener serves the wire's socket at " + socket
          + "; it was kept; stop that process or pick another path");
    } catch (ConnectException stale) {
      LOG.log(Level.INFO, () -> "removed the stale wire socket " + socket);
      Files.deleteIfExists(socket);
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, () -> "closing a refused connection failed: " + e);
    }
  }
}
