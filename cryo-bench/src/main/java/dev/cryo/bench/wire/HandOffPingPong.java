package dev.cryo.bench.wire;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The floor of the wire's threading, without the wire: the same ping-pong of fixed-size messages
 * as {@link SocketPingPong}, but with the thread hand-offs a wire's call makes. On the serving
 * side a platform reader thread starts a virtual thread per message, which writes the echo; on
 * the calling side a platform reader thread completes the future the caller waits on. No header,
 * no id, no map: what is left between this and the wire is the wire's own code.
 */
final class HandOffPingPong implements AutoCloseable {

  private final SocketChannel client;
  private final SocketChannel server;
  private final int messageBytes;
  private final ByteBuffer out;
  private final AtomicReference<CompletableFuture<byte[]>> waiting = new AtomicReference<>();
  private final Thread serverReader;
  private final Thread clientReader;

  HandOffPingPong(Path socket, int messageBytes) throws IOException {
    this.messageBytes = messageBytes;
    Files.deleteIfExists(socket);
    try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      listener.bind(UnixDomainSocketAddress.of(socket));
      client = SocketChannel.open(StandardProtocolFamily.UNIX);
      client.connect(UnixDomainSocketAddress.of(socket));
      server = listener.accept();
    }
    Files.deleteIfExists(socket);
    out = ByteBuffer.allocate(messageBytes);
    serverReader = Thread.ofPlatform().daemon(true).name("handoff-server").start(this::serve);
    clientReader = Thread.ofPlatform().daemon(true).name("handoff-client").start(this::receive);
  }

  private void serve() {
    try {
      while (true) {
        byte[] message = readMessage(server);
        if (message == null) {
          return;
        }
        Thread.ofVirtual().start(() -> {
          try {
            writeAll(server, ByteBuffer.wrap(message));
          } catch (IOException closed) {
            // close() ends the echo.
          }
        });
      }
    } catch (IOException closed) {
      // close() ends the echo.
    }
  }

  private void receive() {
    try {
      while (true) {
        byte[] message = readMessage(client);
        if (message == null) {
          return;
        }
        waiting.getAndSet(null).complete(message);
      }
    } catch (IOException closed) {
      // close() ends it.
    }
  }

  private byte[] readMessage(SocketChannel channel) throws IOException {
    ByteBuffer in = ByteBuffer.allocate(messageBytes);
    while (in.hasRemaining()) {
      if (channel.read(in) < 0) {
        return null;
      }
    }
    return in.array();
  }

  private static synchronized void writeAll(SocketChannel channel, ByteBuffer buffer)
      throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** One round trip; fails when the bytes that came back are not the bytes sent. */
  void roundTrip() throws IOException {
    CompletableFuture<byte[]> reply = new CompletableFuture<>();
    waiting.set(reply);
    out.clear();
    writeAll(client, out);
    if (reply.join().length != messageBytes) {
      throw new IllegalStateException("the echo changed the message");
    }
  }

  @Override
  public void close() throws IOException {
    client.close();
    server.close();
    try {
      serverReader.join(5000);
      clientReader.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
