package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class WireListenerTest {

  @TempDir
  Path directory;

  private Path pathOfBytes(int bytes) {
    String prefix = directory.toString() + "/";
    return Path.of(prefix + "s".repeat(bytes - prefix.length()));
  }

  @Test
  void aPathOf107BytesOrMoreIsRefusedAndOf106Accepted() throws Exception {
    Path longest = pathOfBytes(106);
    try (WireListener listener = WireListener.bind(longest)) {
      assertThat(Files.exists(longest)).isTrue();
    }
    for (int bytes : new int[] {107, 108, 300}) {
      Path tooLong = pathOfBytes(bytes);
      assertThatThrownBy(() -> WireListener.bind(tooLong))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is " + bytes + " bytes").hasMessageContaining("106 bytes at most");
      assertThat(Files.exists(tooLong)).isFalse();
    }
    Path tooLong = pathOfBytes(108);
    assertThatThrownBy(() -> Wire.connect(tooLong)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void missingParentsAreMadePrivate() throws Exception {
    Path socket = directory.resolve("run/wires/w.sock");
    try (WireListener listener = WireListener.bind(socket)) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
          .isEqualTo("rwx------");
      assertThat(PosixFilePermissions.toString(
          Files.getPosixFilePermissions(socket.getParent().getParent()))).isEqualTo("rwx------");
    }
  }

  @Test
  void aStaleSocketFileIsUnlinkedAndALiveOneOrAnotherFileKept() throws Exception {
    Path socket = directory.resolve("w.sock");
    try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      dead.bind(UnixDomainSocketAddress.of(socket));
    }
    assertThat(Files.exists(socket)).as("a closed listener leaves its file").isTrue();
    try (WireListener listener = WireListener.bind(socket)) {
      assertThatThrownBy(() -> WireListener.bind(socket)).isInstanceOf(IOException.class)
          .hasMessageContaining("another listener");
      // The live listener survived the probe and serves.
      try (SocketChannel client = Wire.connect(socket)) {
        assertThat(listener.accept(Duration.ofSeconds(10)).isConnected()).isTrue();
      }
    }
    assertThat(Files.exists(socket)).as("close unlinks the socket file").isFalse();
    Path file = directory.resolve("plain");
    Files.writeString(file, "keep me");
    assertThatThrownBy(() -> WireListener.bind(file)).isInstanceOf(IOException.class)
        .hasMessageContaining("not a socket");
    assertThat(Files.readString(file)).isEqualTo("keep me");
  }

  @Test
  void aSecondConnectionIsAcceptedAndClosedAtOnceWhileTheFirstServes() throws Exception {
    Path socket = directory.resolve("w.sock");
    try (WireListener listener = WireListener.bind(socket);
        SocketChannel first = Wire.connect(socket)) {
      SocketChannel accepted = listener.accept(Duration.ofSeconds(10));
      try (SocketChannel second = Wire.connect(socket)) {
        var read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return second.read(java.nio.ByteBuffer.allocate(1));
          } catch (IOException e) {
            return -2;
          }
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        assertThat(read.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("closed at once")
            .isEqualTo(-1);
      }
      RecordingHandler commanderSide = new RecordingHandler();
      Wire commander = Wire.open(accepted, "commander", commanderSide, WirePair.COMMANDER_CALLS,
          WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      Wire worker = Wire.open(first, "worker", new RecordingHandler(), WirePair.WORKER_CALLS,
          WirePair.WORKER_EVENTS, WireLimits.defaults());
      assertThat(worker.call("present", "me".getBytes(UTF_8), Duration.ofSeconds(10)).join())
          .isEqualTo("me".getBytes(UTF_8));
      assertThatThrownBy(() -> listener.accept(Duration.ofSeconds(1)))
          .isInstanceOf(IllegalStateException.class);
      commander.close();
      worker.close();
    }
  }

  @Test
  void noConnectionInTimeIsATimeoutAndTheListenerKeepsListening() throws Exception {
    Path socket = directory.resolve("w.sock");
    try (WireListener listener = WireListener.bind(socket)) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> listener.accept(Duration.ofMillis(100)))
          .isInstanceOfSatisfying(WireTimeoutException.class,
              e -> assertThat(e.reason()).isEqualTo(WireException.Reason.TIMEOUT));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
          Duration.ofMillis(100));
      try (SocketChannel late = Wire.connect(socket)) {
        assertThat(listener.accept(Duration.ofSeconds(10)).isConnected()).isTrue();
      }
    }
  }

  @Test
  void acceptOnAClosedListenerFails() throws Exception {
    WireListener listener = WireListener.bind(directory.resolve("w.sock"));
    listener.close();
    listener.close();
    assertThatThrownBy(() -> listener.accept(Duration.ofSeconds(1))).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> Wire.connect(directory.resolve("w.sock")))
        .isInstanceOf(IOException.class).hasMessageContaining("cannot connect");
  }
}
