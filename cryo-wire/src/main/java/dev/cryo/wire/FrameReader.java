package dev.cryo.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads frames off one wire's non-blocking channel, checking every length against the limits
 * before allocating for it. Buffered: one read of the channel usually brings a whole small frame.
 *
 * <p>A frame that fits the buffer (64 KiB) is consumed only once it is whole in the buffer, so
 * the reading can stop between any two reads of the channel and resume later on another thread
 * ({@link Wait}): this is what lets the right to read pass from thread to thread ({@link
 * ReadTurn}). A larger frame is read to its end once begun. Used by one thread at a time (the
 * holder of the turn); its state passes between threads through the turn's lock.
 */
final class FrameReader {

  /** What next() does when the channel has no byte for it. */
  interface Wait {
    /**
     * Waits until the channel may be readable.
     *
     * @return false to stop reading for now: next() returns {@link #NOT_NOW}, nothing consumed
     */
    boolean await() throws IOException;
  }

  /** Returned by {@link #next} when its {@link Wait} said to stop. */
  static final Frame NOT_NOW = new Frame(FrameKind.EVENT, 0, "not-now", null, null, new byte[0]);

  private static final int BUFFER_BYTES = 64 * 1024;
  private static final int GOT_BYTES = 1;
  private static final int END = 0;
  private static final int STOPPED = -1;

  private final ChannelIo io;
  private final WireLimits limits;
  private final FrameCodec codec = FrameCodec.forReader();
  /** Bytes read from the channel and not yet consumed, between position and limit. */
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES)
      .order(ByteOrder.BIG_ENDIAN).flip();

  FrameReader(ChannelIo io, WireLimits limits) {
    this.io = io;
    this.limits = limits;
  }

  /** Whether bytes of a frame were read off the channel and not consumed yet. */
  boolean hasBuffered() {
    return buffer.hasRemaining();
  }

  /**
   * The next frame; null at a clean end of stream (between two frames); {@link #NOT_NOW} when
   * the wait said to stop (the bytes read so far stay buffered for the next call).
   *
   * @throws MalformedFrameException when the bytes break the protocol
   * @throws IOException when the channel fails
   */
  Frame next(Wait wait) throws IOException, MalformedFrameException {
    while (true) {
      if (buffer.remaining() >= Frame.PRELUDE_BYTES) {
        int at = buffer.position();
        FrameKind kind = checkPrelude(at);
        int headerBytes = buffer.getInt(at + 6);
        int payloadBytes = buffer.getInt(at + 10);
        long frameBytes = (long) Frame.PRELUDE_BYTES + headerBytes + payloadBytes;
        if (frameBytes > BUFFER_BYTES) {
          buffer.position(at + Frame.PRELUDE_BYTES);
          return readLarge(kind, headerBytes, payloadBytes);
        }
        if (buffer.remaining() >= frameBytes) {
          buffer.position(at + Frame.PRELUDE_BYTES);
          byte[] header = new byte[headerBytes];
          buffer.get(header);
          byte[] payload = new byte[payloadBytes];
          buffer.get(payload);
          return codec.parseHeader(kind, header, payload);
        }
      }
      int got = readSome(wait);
      if (got == STOPPED) {
        return NOT_NOW;
      }
      if (got == END) {
        if (buffer.hasRemaining()) {
          throw truncated();
        }
        return null;
      }
    }
  }

  /** Checks the prelude at the given index (whole in the buffer); returns its kind. */
  private FrameKind checkPrelude(int at) throws MalformedFrameException {
    int magic = buffer.getInt(at);
    byte version = buffer.get(at + 4);
    byte kindByte = buffer.get(at + 5);
    long headerBytes = Integer.toUnsignedLong(buffer.getInt(at + 6));
    long payloadBytes = Integer.toUnsignedLong(buffer.getInt(at + 10));
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
    return kind;
  }

  /**
   * Reads more bytes into the buffer (at least one), waiting through the Wait when there is none.
   * When the buffer is empty the wait comes first: a frame that was just asked for is not there
   * yet, and a read would only find that out.
   */
  private int readSome(Wait wait) throws IOException {
    boolean empty = !buffer.hasRemaining();
    buffer.compact();
    try {
      if (empty && !wait.await()) {
        return STOPPED;
      }
      while (true) {
        int n = io.read(buffer);
        if (n > 0) {
          return GOT_BYTES;
        }
        if (n < 0) {
          return END;
        }
        if (!wait.await()) {
          return STOPPED;
        }
      }
    } finally {
      buffer.flip();
    }
  }

  /**
   * A frame larger than the buffer, its prelude consumed: read to its end, whatever the waits
   * would say (an interrupt meanwhile is given back once the frame is in).
   */
  private Frame readLarge(FrameKind kind, int headerBytes, int payloadBytes)
      throws IOException, MalformedFrameException {
    boolean interrupted = false;
    try {
      byte[] header = new byte[headerBytes];
      interrupted |= readFully(header);
      byte[] payload = new byte[payloadBytes];
      interrupted |= readFully(payload);
      return codec.parseHeader(kind, header, payload);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Fills out from the buffer, then straight from the channel; true when an interrupt came. */
  private boolean readFully(byte[] out) throws IOException, MalformedFrameException {
    int have = Math.min(out.length, buffer.remaining());
    buffer.get(out, 0, have);
    boolean interrupted = false;
    ByteBuffer rest = ByteBuffer.wrap(out, have, out.length - have);
    while (rest.hasRemaining()) {
      int n = io.read(rest);
      if (n < 0) {
        throw truncated();
      }
      if (n == 0) {
        interrupted |= io.awaitReadable(0);
      }
    }
    return interrupted;
  }

  private static MalformedFrameException truncated() {
    return new MalformedFrameException("truncated",
        "the stream ended in the middle of a frame");
  }
}
