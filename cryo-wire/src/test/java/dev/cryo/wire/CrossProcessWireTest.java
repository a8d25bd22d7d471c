package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The wire between two JVMs: the death of one (kill -9) is the end of the other's wire. */
@Timeout(120)
class CrossProcessWireTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir
  Path directory;

  private static Process startPeer(Path socket) throws Exception {
    String java = ProcessHandle.current().info().command()
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    return new ProcessBuilder(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Xmx64m", "-cp", System.getProperty("java.class.path"), WirePeerMain.class.getName(),
        socket.toString())).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** A commander side that answers present with "welcome" and records what it hears. */
  private static final class Commander extends RecordingHandler {
    final CompletableFuture<Long> presented = new CompletableFuture<>();

    Commander() {
      serve = (method, payload) -> {
        presented.complete(Long.parseLong(new String(payload, UTF_8)));
        return "welcome".getBytes(UTF_8);
      };
    }
  }

  @Test
  void theKillOfThePeerEndsTheWireAndFailsItsPendingCalls() throws Exception {
    Path socket = directory.resolve("w.sock");
    try (WirePair bystander = new WirePair(directory.resolve("other"));
        WireListener listener = WireListener.bind(socket)) {
      Process peer = startPeer(socket);
      try {
        Commander side = new Commander();
        Wire wire = Wire.open(listener.accept(LONG), "worker-1", side, WirePair.COMMANDER_CALLS,
            WirePair.COMMANDER_EVENTS, WireLimits.defaults());
        assertThat(side.presented.get(30, TimeUnit.SECONDS)).isEqualTo(peer.pid());
        side.awaitEvents(1);
        assertThat(wire.call("http", "hello".getBytes(UTF_8), LONG).join())
            .isEqualTo("hello".getBytes(UTF_8));
        assertThat(side.events).containsExactly("announce:presented", "announce:hello");
        CompletableFuture<byte[]> hanging = wire.call("ping", new byte[0], LONG);
        peer.destroyForcibly(); // SIGKILL
        assertThat(peer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(side.awaitClosed()).startsWith("end_of_stream:");
        try {
          hanging.get(10, TimeUnit.SECONDS);
          throw new AssertionError("the pending call succeeded");
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(WireClosedException.class);
        }
        assertThat(side.closes.get()).isEqualTo(1);
        assertThat(bystander.commander.call("ping", "still".getBytes(UTF_8), LONG).join())
            .isEqualTo("still".getBytes(UTF_8));
      } finally {
        peer.destroyForcibly();
      }
    }
  }

  @Test
  void thePeerSeesTheEndOfItsWireWhenThisSideCloses() throws Exception {
    Path socket = directory.resolve("w.sock");
    try (WireListener listener = WireListener.bind(socket)) {
      Process peer = startPeer(socket);
      try {
        Commander side = new Commander();
        Wire wire = Wire.open(listener.accept(LONG), "worker-1", side, WirePair.COMMANDER_CALLS,
            WirePair.COMMANDER_EVENTS, WireLimits.defaults());
        side.presented.get(30, TimeUnit.SECONDS);
        side.awaitEvents(1); // the peer got its answer
        wire.close();
        assertThat(peer.waitFor(30, TimeUnit.SECONDS)).as("the peer exits").isTrue();
        assertThat(peer.exitValue()).as("0: it saw an end of stream").isZero();
      } finally {
        peer.destroyForcibly();
      }
    }
  }
}
