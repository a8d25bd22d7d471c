package dev.cryo.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The socket of one wire in non-blocking mode, with a selector for waiting until it is readable
 * and another for waiting until it is writable. Non-blocking so that no thread's interrupt can
 * close the channel: a blocking read or write of an {@code InterruptibleChannel} closes it when
 * its thread is interrupted, and the thread that reads a wire may be a caller waiting for its
 * reply ({@link ReadTurn}), whose interrupt must not end the wire of every other caller.
 *
 * <p>Threads: one reader at a time (the holder of the wire's {@link ReadTurn}) calls {@link #read}
 * and {@link #awaitReadable}; one writer at a time (the holder of the wire's write lock) calls
 * {@link #writeFully}; {@link #wakeReader} and {@link #close} from any thread.
 */
class ChannelIo {

  private static final Consumer<SelectionKey> IGNORE = key -> { };

  /**
   * The largest frame {@link #writeFrame} copies into its direct buffer; a frame of 1 KiB, as most
   * are, and a burst of announcements fit. Larger ones are written from their arrays.
   */
  static final int STAGING_BYTES = 64 * 1024;

  private final SocketChannel channel;
  private final Selector readable;
  private final Selector writable;
  /** The writer's direct buffer, made at the first small frame: one element, for writeFully. */
  private final ByteBuffer[] staging = new ByteBuffer[1];

  private ChannelIo(SocketChannel channel, Selector readable, Selector writable) {
    this.channel = channel;
    this.readable = readable;
    this.writable = writable;
  }

  /** The same channel and selectors as {@code other}: for a test's subclass that wraps a step. */
  ChannelIo(ChannelIo other) {
    this(other.channel, other.readable, other.writable);
  }

  /** Puts a connected channel in non-blocking mode and registers it with its two selectors. */
  static ChannelIo open(SocketChannel channel) throws IOException {
    channel.configureBlocking(false);
    Selector readable = Selector.open();
    try {
      Selector writable = Selector.open();
      try {
        channel.register(readable, SelectionKey.OP_READ);
        channel.register(writable, SelectionKey.OP_WRITE);
        return new ChannelIo(channel, readable, writable);
      } catch (IOException | RuntimeException e) {
        writable.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      readable.close();
      throw e;
    }
  }

  /** One non-blocking read: the bytes read, 0 when none is there yet, -1 at the end of stream. */
  int read(ByteBuffer into) throws IOException {
    return channel.read(into);
  }

  /**
   * Blocks until the channel may be readable (or has ended), {@link #wakeReader} is called, the
   * thread is interrupted or the timeout passes. A spurious return is possible: read again.
   *
   * @param timeoutMillis the longest wait, 0 for no bound
   * @return whether an interrupt cut the wait; the thread's interrupt status is then cleared, and
   *     the caller decides what it means
   * @throws ClosedChannelException when the wire was closed
   */
  boolean awaitReadable(long timeoutMillis) throws IOException {
    try {
      readable.select(IGNORE, timeoutMillis);
    } catch (ClosedSelectorException e) {
      throw new ClosedChannelException();
    }
    return Thread.interrupted();
  }

  /** Makes the reader's current or next {@link #awaitReadable} return. Any thread; never throws. */
  void wakeReader() {
    try {
      readable.wakeup();
    } catch (RuntimeException e) {
      // A closed selector: its reader is out of its wait already.
    }
  }

  /**
   * Writes a frame's head and then its payload, whole, waiting for room in the socket's buffer
   * when it is full. A frame of at most {@link #STAGING_BYTES} is copied into this channel's own
   * direct buffer and written from there with one write: the JDK writes a heap buffer by copying
   * it into a temporary direct buffer anyway, so the copy is not an extra one, and the frame
   * allocates nothing on its way (no buffer wrapped, no array of buffers). A larger frame is
   * written with gathering writes straight from the two arrays. The writer's interrupt status is
   * set aside during the write and given back after it: an interrupt neither cuts a frame nor
   * closes the channel.
   *
   * <p>One writer at a time (the holder of the wire's write lock): the staging buffer is the
   * writer's.
   *
   * @throws ClosedChannelException when the wire was closed (a blocked write included)
   */
  void writeFrame(byte[] head, byte[] payload) throws IOException {
    if (head.length + payload.length <= STAGING_BYTES) {
      ByteBuffer staged = staging[0];
      if (staged == null) {
        staged = staging[0] = ByteBuffer.allocateDirect(STAGING_BYTES);
      }
      staged.clear();
      staged.put(head).put(payload).flip();
      writeFully(staging);
    } else {
      writeFully(payload.length == 0 ? new ByteBuffer[] {ByteBuffer.wrap(head)}
          : new ByteBuffer[] {ByteBuffer.wrap(head), ByteBuffer.wrap(payload)});
    }
  }

  /**
   * Writes all of the buffers' bytes, in order (one buffer with plain writes, several with
   * gathering writes), waiting for room in the socket's buffer when it is full; the writer's
   * interrupt status set aside as {@link #writeFrame} says.
   *
   * @throws ClosedChannelException when the wire was closed (a blocked write included)
   */
  void writeFully(ByteBuffer[] bytes) throws IOException {
    long left = 0;
    for (ByteBuffer buffer : bytes) {
      left += buffer.remaining();
    }
    boolean interrupted = Thread.interrupted();
    try {
      while (left > 0) {
        long written = bytes.length == 1 ? channel.write(bytes[0]) : channel.write(bytes);
        left -= written;
        if (written == 0) {
          writable.select(IGNORE, 0);
          interrupted |= Thread.interrupted();
        }
      }
    } catch (ClosedSelectorException e) {
      throw new ClosedChannelException();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Closes the channel and both selectors (a thread waiting in one of them returns). The output
   * is shut down first: the JDK closes the socket of a channel registered with selectors only
   * once both have let it go, and the peer must see the end of stream at once whatever holds them.
   */
  void close() throws IOException {
    try {
      channel.shutdownOutput();
    } catch (IOException | RuntimeException e) {
      // Not connected any more, or closed already: nothing to tell the peer.
    }
    try {
      channel.close();
    } finally {
      try {
        readable.close();
      } finally {
        writable.close();
      }
    }
  }
}
