package dev.cryo.bench.wire;

import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireListener;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;

/**
 * Two ends of a real wire in this JVM: the commander side calls {@code echo}, the worker side's
 * handler answers with a reply of the same size. One call in flight at a time.
 */
final class WireEcho implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final WireListener listener;
  private final Wire commander;
  private final Wire worker;
  private final byte[] request;
  private final byte[] reply;

  WireEcho(Path socket, int payloadBytes) throws IOException {
    request = new byte[payloadBytes];
    reply = new byte[payloadBytes];
    Arrays.fill(request, (byte) 'q');
    Arrays.fill(reply, (byte) 'r');
    listener = WireListener.bind(socket);
    worker = Wire.open(Wire.connect(socket), "bench-worker", new Handler(reply), Set.of("echo"),
        Set.of(), WireLimits.defaults());
    commander = Wire.open(listener.accept(TIMEOUT), "bench-commander", new Handler(null),
        Set.of(), Set.of(), WireLimits.defaults());
  }

  /** One call round trip; fails unless the reply is the worker's. */
  void roundTrip() {
    byte[] got = commander.call("echo", request, TIMEOUT).join();
    if (got.length != reply.length || got[0] != 'r') {
      throw new IllegalStateException("the wire's reply is not the worker's");
    }
  }

  @Override
  public void close() {
    commander.close();
    worker.close();
    listener.close();
  }

  private record Handler(byte[] reply) implements WireHandler {
    @Override
    public byte[] onCall(String method, byte[] payload) {
      if (payload.length != reply.length || payload[0] != 'q') {
        throw new IllegalStateException("the wire's call is not the commander's");
      }
      return reply;
    }

    /** The echo is quick and never blocks: served on the thread that reads the wire. */
    @Override
    public boolean servesInline(String method) {
      return true;
    }

    @Override
    public void onEvent(String method, byte[] payload) {
    }

    @Override
    public void onClosed(String reason) {
    }
  }
}
