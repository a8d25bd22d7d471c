package dev.cryo.bench.wire;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The floor: a bare ping-pong of a fixed number of bytes over one Unix domain socket, in this
 * JVM. An echo thread reads the whole message and writes it back; the caller writes it and reads
 * it back. Blocking channels, no framing, no correlation, no copy beyond the JDK's own.
 */
final class SocketPingPong implements AutoCloseable {

  private final SocketChannel client;
  private final SocketChannel server;
  private final Thread echo;
  private final ByteBuffer out;
  private final ByteBuffer in;

  /**
   * Connects a pair through a socket at path and starts the echo thread.
   *
   * @param virtual whether the echo thread (and so the blocking read it waits in) is virtual
   */
  SocketPingPong(Path socket, int messageBytes, boolean virtual) throws IOException {
    Files.deleteIfExists(socket);
    try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      listener.bind(UnixDomainSocketAddress.of(socket));
      client = SocketChannel.open(StandardProtocolFamily.UNIX);
      client.connect(UnixDomainSocketAddress.of(socket));
      server = listener.accept();
    }
    Files.deleteIfExists(socket);
    out = ByteBuffer.allocateDirect(messageBytes);
    in = ByteBuffer.allocateDirect(messageBytes);
    for (int i = 0; i < messageBytes; i++) {
      out.put(i, (byte) i);
    }
    Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
    echo = builder.name("floor-echo").start(() -> serve(messageBytes));
  }

  private void serve(int messageBytes) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(messageBytes);
    try {
      while (true) {
        buffer.clear();
        while (buffer.hasRemaining()) {
          if (server.read(buffer) < 0) {
            return;
          }
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
          server.write(buffer);
        }
      }
    } catch (IOException closed) {
      // close() ends the echo.
    }
  }

  /** One round trip; fails when the bytes that came back are not the bytes sent. */
  void roundTrip() throws IOException {
    out.clear();
    while (out.hasRemaining()) {
      client.write(out);
    }
    in.clear();
    while (in.hasRemaining()) {
      if (client.read(in) < 0) {
        throw new IOException("the echo ended");
      }
    }
    if (in.flip().compareTo(out.flip()) != 0) {
      throw new IllegalStateException("the echo changed the bytes");
    }
  }

  @Override
  public void close() throws IOException {
    client.close();
    server.close();
    try {
      echo.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
