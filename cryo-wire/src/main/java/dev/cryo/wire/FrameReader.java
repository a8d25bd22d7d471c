package dev.cryo.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads frames off one channel, checking every length against the limits before allocating for
 * it. Buffered: one read of the channel usually brings a whole small frame. Used by one thread.
 */
final class FrameReader {

  private static final int BUFFER_BYTES = 64 * 1024;

  private final ReadableByteChannel channel;
  private final WireLimits limits;
  private final FrameCodec codec = FrameCodec.forReader();
  /** Bytes read from the channel and not yet consumed, between position and limit. */
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES)
      .order(ByteOrder.BIG_ENDIAN).flip();

  FrameReader(ReadableByteChannel channel, WireLimits limits) {
    this.channel = channel;
    this.limits = limits;
  }

  /**
   * The next frame, or null at a clean end of stream (between two frames).
   *
   * @throws MalformedFrameException when the bytes break the protocol
   * @throws IOException when the channel fails
   */
  Frame next() throws IOException, MalformedFrameException {
    if (!fill(Frame.PRELUDE_BYTES, true)) {
      return null;
    }
    int magic = buffer.getInt();
    byte version = buffer.get();
    byte kindByte = buffer.get();
    long headerBytes = Integer.toUnsignedLong(buffer.getInt());
    long payloadBytes = Integer.toUnsignedLong(buffer.getInt());
    if (magic != Frame.MAGIC) {
      throw new MalformedFrameException("bad_magic", String.format(
          "the frame starts with 0x%08x, not the magic 0x%08x ('CRYW')", magic, Frame.MAGIC));
    }
    if (version != Frame.VERSION) {
      throw new MalformedFrameException("bad_version", "the frame has version " + version
          + "; this side speaks version " + Frame.VERSION + " only");
    }
    FrameKind kind = FrameKind.of(kindByte);
    if (kind == null) {
      throw new MalformedFrameException("bad_kind", "the frame has kind " + kindByte
          + "; the kinds are 1 (call), 2 (reply), 3 (error), 4 (event)");
    }
    if (headerBytes > limits.maxHeaderBytes()) {
      throw new MalformedFrameException("header_too_large", "the frame announces a header of "
          + headerBytes + " bytes; the limit is " + limits.maxHeaderBytes());
    }
    long frameBytes = Frame.PRELUDE_BYTES + headerBytes + payloadBytes;
    if (frameBytes > limits.maxFrameBytes()) {
      throw new MalformedFrameException("frame_too_large", "the frame announces " + frameBytes
          + " bytes; the limit is " + limits.maxFrameBytes());
    }
    if (kind == FrameKind.ERROR && payloadBytes != 0) {
      throw new MalformedFrameException("bad_payload", "an error reply carries " + payloadBytes
          + " payload bytes; it must carry none");
    }
    byte[] header = readExactly((int) headerBytes);
    byte[] payload = readExactly((int) payloadBytes);
    return codec.parseHeader(kind, header, payload);
  }

  /** Reads exactly n bytes (n within the limits already). */
  private byte[] readExactly(int n) throws IOException, MalformedFrameException {
    byte[] out = new byte[n];
    int have = Math.min(n, buffer.remaining());
    buffer.get(out, 0, have);
    if (have == n) {
      return out;
    }
    if (n - have >= BUFFER_BYTES) {
      // A large payload: read straight into it.
      ByteBuffer rest = ByteBuffer.wrap(out, have, n - have);
      while (rest.hasRemaining()) {
        if (channel.read(rest) < 0) {
          throw truncated();
        }
      }
      return out;
    }
    fill(n - have, false);
    buffer.get(out, have, n - have);
    return out;
  }

  /**
   * Makes at least n bytes (n ≤ the buffer) available.
   *
   * @param atFrameStart whether an end of stream before any byte is a clean end
   * @return false on a clean end of stream
   */
  private boolean fill(int n, boolean atFrameStart) throws IOException, MalformedFrameException {
    if (buffer.remaining() >= n) {
      return true;
    }
    buffer.compact();
    try {
      while (buffer.position() < n) {
        if (channel.read(buffer) < 0) {
          if (atFrameStart && buffer.position() == 0) {
            return false;
          }
          throw truncated();
        }
      }
    } finally {
      buffer.flip();
    }
    return true;
  }

  private static MalformedFrameException truncated() {
    return new MalformedFrameException("truncated",
        "the stream ended in the middle of a frame");
  }
}
