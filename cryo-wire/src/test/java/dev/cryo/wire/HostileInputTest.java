package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A raw socket plays a hostile worker against the commander's side of a wire: each malformed
 * input closes that wire with its reason, and a second, healthy wire goes on serving.
 */
@Timeout(60)
class HostileInputTest {

  @TempDir
  Path directory;

  static Stream<Arguments> hostileInputs() {
    byte[] empty = new byte[0];
    return Stream.of(
        Arguments.of("bad magic", Frames.raw(0x47524e46, 1, 1,
            "{\"id\":1,\"method\":\"present\"}".getBytes(UTF_8), empty), "bad_magic"),
        Arguments.of("bad version", Frames.raw(Frame.MAGIC, 2, 1,
            "{\"id\":1,\"method\":\"present\"}".getBytes(UTF_8), empty), "bad_version"),
        Arguments.of("bad kind", Frames.raw(Frame.MAGIC, 1, 9,
            "{\"id\":1,\"method\":\"present\"}".getBytes(UTF_8), empty), "bad_kind"),
        Arguments.of("kind zero", Frames.raw(Frame.MAGIC, 1, 0,
            "{\"method\":\"announce\"}".getBytes(UTF_8), empty), "bad_kind"),
        Arguments.of("header past 64 KiB", Frames.prelude(1, 64 * 1024 + 1, 0), "header_too_large"),
        Arguments.of("header length 2^32-1", Frames.prelude(4, 0xffffffffL, 0), "header_too_large"),
        Arguments.of("frame past 16 MiB", Frames.prelude(4, 20, 16 * 1024 * 1024), "frame_too_large"),
        Arguments.of("payload length 2^32-1", Frames.prelude(4, 20, 0xffffffffL), "frame_too_large"),
        Arguments.of("truncated prelude", new byte[] {0x43, 0x52, 0x59}, "truncated"),
        Arguments.of("truncated header", Frames.prelude(4, 30, 0), "truncated"),
        Arguments.of("truncated payload", java.util.Arrays.copyOf(
            Frames.event("announce", "0123456789"), 30), "truncated"),
        Arguments.of("not JSON", Frames.frame(4, "method=announce", empty), "bad_header"),
        Arguments.of("empty header", Frames.frame(4, "", empty), "bad_header"),
        Arguments.of("a JSON array", Frames.frame(4, "[\"announce\"]", empty), "bad_header"),
        Arguments.of("duplicate key", Frames.frame(4,
            "{\"method\":\"announce\",\"method\":\"announce\"}", empty), "bad_header"),
        Arguments.of("NaN id", Frames.frame(1, "{\"id\":NaN,\"method\":\"present\"}", empty),
            "bad_header"),
        Arguments.of("float id", Frames.frame(1, "{\"id\":1.0,\"method\":\"present\"}", empty),
            "bad_header"),
        Arguments.of("id zero", Frames.frame(1, "{\"id\":0,\"method\":\"present\"}", empty),
            "bad_header"),
        Arguments.of("negative id", Frames.frame(1, "{\"id\":-4,\"method\":\"present\"}", empty),
            "bad_header"),
        Arguments.of("id past 2^63", Frames.frame(1,
            "{\"id\":9223372036854775808,\"method\":\"present\"}", empty), "bad_header"),
        Arguments.of("id as a string", Frames.frame(1, "{\"id\":\"1\",\"method\":\"present\"}",
            empty), "bad_header"),
        Arguments.of("call without id", Frames.frame(1, "{\"method\":\"present\"}", empty),
            "bad_header"),
        Arguments.of("event with an id", Frames.frame(4, "{\"id\":3,\"method\":\"announce\"}",
            empty), "bad_header"),
        Arguments.of("unexpected field", Frames.frame(4,
            "{\"method\":\"announce\",\"path\":\"/\"}", empty), "bad_header"),
        Arguments.of("method not a string", Frames.frame(4, "{\"method\":[\"announce\"]}", empty),
            "bad_header"),
        Arguments.of("method with a space", Frames.frame(4, "{\"method\":\"an nounce\"}", empty),
            "bad_header"),
        Arguments.of("code on a reply", Frames.frame(2,
            "{\"id\":1,\"method\":\"ping\",\"code\":\"x\"}", empty), "bad_header"),
        Arguments.of("error without message", Frames.frame(3,
            "{\"id\":1,\"method\":\"ping\",\"code\":\"x\"}", empty), "bad_header"),
        Arguments.of("error with payload", Frames.frame(3,
            "{\"id\":1,\"method\":\"ping\",\"code\":\"x\",\"message\":\"m\"}", new byte[] {1}),
            "bad_payload"),
        Arguments.of("trailing content", Frames.frame(4, "{\"method\":\"announce\"} {}", empty),
            "bad_header"),
        Arguments.of("comment", Frames.frame(4, "{\"method\":\"announce\"/*x*/}", empty),
            "bad_header"),
        Arguments.of("invalid UTF-8", Frames.raw(Frame.MAGIC, 1, 4, Frames.concat(
            "{\"method\":\"announce\",\"x\":\"".getBytes(UTF_8), new byte[] {(byte) 0xc3, 0x28},
            "\"}".getBytes(UTF_8)), empty), "bad_header"),
        Arguments.of("overlong UTF-8", Frames.raw(Frame.MAGIC, 1, 4, Frames.concat(
            "{\"method\":\"announce".getBytes(UTF_8), new byte[] {(byte) 0xc0, (byte) 0xa2},
            "}".getBytes(UTF_8)), empty), "bad_header"),
        Arguments.of("byte-order mark", Frames.raw(Frame.MAGIC, 1, 4, Frames.concat(
            new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
            "{\"method\":\"announce\"}".getBytes(UTF_8)), empty), "bad_header"),
        Arguments.of("unknown call method", Frames.call(1, "eval", "{}"), "unknown_method"),
        Arguments.of("unknown event method", Frames.event("observe", "{}"), "unknown_method"),
        Arguments.of("call method as an event", Frames.event("present", "{}"), "unknown_method"),
        Arguments.of("reply to an unknown id", Frames.reply(77, "ping", "{}"), "unknown_id"),
        Arguments.of("error to an unknown id", Frames.frame(3,
            "{\"id\":5,\"method\":\"ping\",\"code\":\"x\",\"message\":\"m\"}", empty), "unknown_id"),
        Arguments.of("random bytes", new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
            "bad_magic"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileInputs")
  void aHostileFrameClosesThatWireOnlyWithItsReason(String what, byte[] input, String code)
      throws Exception {
    try (WirePair healthy = new WirePair(directory.resolve("healthy"));
        WireListener listener = WireListener.bind(directory.resolve("hostile.sock"));
        SocketChannel attacker = Wire.connect(listener.path())) {
      RecordingHandler attacked = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "attacked", attacked,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      writeAll(attacker, input);
      if (code.equals("truncated")) {
        attacker.shutdownOutput();
      }
      assertThat(attacked.awaitClosed()).as(what).startsWith(code + ":");
      assertThat(wire.isOpen()).isFalse();
      assertThat(attacked.closes.get()).isEqualTo(1);
      assertThat(attacked.events).isEmpty();
      assertThat(readUntilEnd(attacker)).as("the attacked side hung up").isTrue();
      // The healthy wire never noticed.
      assertThat(healthy.commander.call("ping", "alive".getBytes(UTF_8), Duration.ofSeconds(10))
          .join()).isEqualTo("alive".getBytes(UTF_8));
      assertThat(healthy.worker.call("locate", "me".getBytes(UTF_8), Duration.ofSeconds(10))
          .join()).isEqualTo("me".getBytes(UTF_8));
      assertThat(healthy.commander.isOpen()).isTrue();
    }
  }

  @Test
  void aReplyNamingAnotherMethodThanItsCallClosesTheWire() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel attacker = Wire.connect(listener.path())) {
      RecordingHandler attacked = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "attacked", attacked,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      var call = wire.call("ping", new byte[0], Duration.ofSeconds(30));
      // The call's frame is id 1: answer it under another method.
      readAtLeast(attacker, 14);
      writeAll(attacker, Frames.reply(1, "quit", "{}"));
      assertThat(attacked.awaitClosed()).startsWith("method_mismatch:");
      assertThat(call).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
          .havingCause().isInstanceOfSatisfying(WireClosedException.class,
              e -> assertThat(e.closeReason()).startsWith("method_mismatch:"));
    }
  }

  @Test
  void aLateReplyIsDroppedOnceAndASecondOneToTheSameIdIsHostile() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      RecordingHandler side = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "caller", side,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      var call = wire.call("ping", new byte[0], Duration.ofMillis(20));
      readAtLeast(peer, Frames.call(1, "ping", "").length);
      assertThat(call).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
          .havingCause().isInstanceOf(WireTimeoutException.class);
      writeAll(peer, Frames.concat(Frames.reply(1, "ping", "late"), Frames.event("announce", "x")));
      // The event behind the late reply is handled: the reply was dropped, the wire is open.
      side.awaitEvents(1);
      assertThat(side.events).containsExactly("announce:x");
      assertThat(wire.isOpen()).isTrue();
      writeAll(peer, Frames.reply(1, "ping", "again"));
      assertThat(side.awaitClosed()).startsWith("unknown_id:");
    }
  }

  @Test
  void aLateReplyNamingAnotherMethodIsHostile() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      RecordingHandler side = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "caller", side,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      var call = wire.call("ping", new byte[0], Duration.ofMillis(20));
      readAtLeast(peer, Frames.call(1, "ping", "").length);
      assertThat(call).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
          .havingCause().isInstanceOf(WireTimeoutException.class);
      writeAll(peer, Frames.reply(1, "quit", "late"));
      assertThat(side.awaitClosed()).startsWith("method_mismatch:");
    }
  }

  @Test
  void aPeerThatDiesWithFramesUnreadEndsTheWireAsAnEndOfStream() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"))) {
      SocketChannel peer = Wire.connect(listener.path());
      RecordingHandler side = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "caller", side,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      var call = wire.call("ping", new byte[0], Duration.ofSeconds(30));
      wire.event("note", new byte[0]);
      peer.close(); // with both frames unread: the kernel resets the connection
      assertThat(side.awaitClosed()).startsWith("end_of_stream:");
      assertThat(call).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
          .havingCause().isInstanceOf(WireClosedException.class);
    }
  }

  @Test
  void aValidFrameFromTheRawPeerIsServed() throws Exception {
    // The control case: the attacker's frames are right when they are well-formed.
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      RecordingHandler side = new RecordingHandler();
      Wire wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "served", side,
          WirePair.COMMANDER_CALLS, WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      writeAll(peer, Frames.concat(Frames.event("announce", "one"), Frames.call(9, "locate", "x")));
      byte[] reply = readAtLeast(peer, Frames.reply(9, "locate", "x").length);
      assertThat(reply).isEqualTo(Frames.reply(9, "locate", "x"));
      assertThat(side.events).containsExactly("announce:one");
      assertThat(wire.isOpen()).isTrue();
      wire.close();
    }
  }

  static void writeAll(SocketChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  static byte[] readAtLeast(SocketChannel channel, int n) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(n);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        throw new IOException("end of stream after " + buffer.position() + " bytes");
      }
    }
    return buffer.array();
  }

  /** Reads and drops until the end of stream; true when it came (the channel blocks). */
  static boolean readUntilEnd(SocketChannel channel) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(8192);
    try {
      while (channel.read(buffer) >= 0) {
        buffer.clear();
      }
    } catch (IOException reset) {
      return true; // connection reset: the other side closed with unread bytes
    }
    return true;
  }
}
