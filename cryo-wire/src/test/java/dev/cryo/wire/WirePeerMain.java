package dev.cryo.wire;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A worker-side peer in a JVM of its own, for {@link CrossProcessWireTest}: connects to the socket
 * named by its argument, presents itself (a call {@code present} carrying its pid), then serves
 * an event {@code announce} "presented" once the call was answered, then serves
 * {@code http} (an echo, after one {@code announce} event) and {@code ping} (never answered).
 * When the wire ends it exits: status 0 for an end of stream, 3 for any other reason.
 */
public final class WirePeerMain {

  private WirePeerMain() {
  }

  /** Runs the peer; {@code args[0]} is the socket path. */
  public static void main(String[] args) throws Exception {
    CountDownLatch ended = new CountDownLatch(1);
    String[] reason = new String[1];
    Wire[] wire = new Wire[1];
    WireHandler handler = new WireHandler() {
      @Override
      public byte[] onCall(String method, byte[] payload) throws Exception {
        if (method.equals("ping")) {
          new CountDownLatch(1).await();
        }
        wire[0].event("announce", payload);
        return payload;
      }

      @Override
      public void onEvent(String method, byte[] payload) {
      }

      @Override
      public void onClosed(String why) {
        reason[0] = why;
        ended.countDown();
      }
    };
    wire[0] = Wire.open(Wire.connect(Path.of(args[0])), "peer", handler, WirePair.WORKER_CALLS,
        WirePair.WORKER_EVENTS, WireLimits.defaults());
    byte[] pid = Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8);
    wire[0].call("present", pid, Duration.ofSeconds(30)).join();
    wire[0].event("announce", "presented".getBytes(StandardCharsets.UTF_8));
    ended.await();
    System.exit(reason[0].startsWith("end_of_stream:") ? 0 : 3);
  }
}
