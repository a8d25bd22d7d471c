package dev.cryo.bench.wire;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The floor: a bare ping-pong of a fixed number of bytes over one Unix domain socket, in this
 * JVM. An echo thread reads the whole message and writes it back; the caller writes it and reads
 * it back. Blocking channels, no framing, no correlation, no copy beyond the JDK's own.
 *
 * <p>With selectors, both channels are non-blocking and each side waits for its bytes in a {@link
 * Selector} of its own (epoll), as the wire's threads do: the floor with the wire's way of
 * waiting, to tell whether that way costs anything by itself.
 */
final class SocketPingPong implements AutoCloseable {

  private final SocketChannel client;
  private final SocketChannel server;
  private final Thread echo;
  private final ByteBuffer out;
  private final ByteBuffer in;
  /** The caller's selector, null for blocking channels. */
  private final Selector readable;

  /**
   * Connects a pair through a socket at path and starts the echo thread.
   *
   * @param virtual whether the echo thread (and so the blocking read it waits in) is virtual
   * @param selectors whether both sides wait in a selector on non-blocking channels
   */
  SocketPingPong(Path socket, int messageBytes, boolean virtual, boolean selectors)
      throws IOException {
    Files.deleteIfExists(socket);
    try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      listener.bind(UnixDomainSocketAddress.of(socket));
      client = SocketChannel.open(StandardProtocolFamily.UNIX);
      client.connect(UnixDomainSocketAddress.of(socket));
      server = listener.accept();
    }
    Files.deleteIfExists(socket);
    readable = selectors ? watch(client) : null;
    Selector echoReadable = selectors ? watch(server) : null;
    out = ByteBuffer.allocateDirect(messageBytes);
    in = ByteBuffer.allocateDirect(messageBytes);
    for (int i = 0; i < messageBytes; i++) {
      out.put(i, (byte) i);
    }
    Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
    echo = builder.name("floor-echo").start(() -> serve(messageBytes, echoReadable));
  }

  private static Selector watch(SocketChannel channel) throws IOException {
    channel.configureBlocking(false);
    Selector selector = Selector.open();
    channel.register(selector, SelectionKey.OP_READ);
    return selector;
  }

  /** Reads until the buffer is full, waiting in the selector (when there is one) for bytes. */
  private static boolean readFully(SocketChannel channel, ByteBuffer buffer, Selector selector)
      throws IOException {
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer);
      if (n < 0) {
        return false;
      }
      if (n == 0 && selector != null) {
        selector.select(key -> { }, 0);
      }
    }
    return true;
  }

  private void serve(int messageBytes, Selector selector) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(messageBytes);
    try {
      while (true) {
        buffer.clear();
        if (!readFully(server, buffer, selector)) {
          return;
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
          server.write(buffer);
        }
      }
    } catch (IOException | java.nio.channels.ClosedSelectorException closed) {
      // close() ends the echo.
    } finally {
      if (selector != null) {
        try {
          selector.close();
        } catch (IOException e) {
          // Nothing left to release.
        }
      }
    }
  }

  /** One round trip; fails when the bytes that came back are not the bytes sent. */
  void roundTrip() throws IOException {
    out.clear();
    while (out.hasRemaining()) {
      client.write(out);
    }
    in.clear();
    if (!readFully(client, in, readable)) {
      throw new IOException("the echo ended");
    }
    if (in.flip().compareTo(out.flip()) != 0) {
      throw new IllegalStateException("the echo changed the bytes");
    }
  }

  @Override
  public void close() throws IOException {
    client.close();
    server.close();
    if (readable != null) {
      readable.close();
    }
    try {
      echo.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
