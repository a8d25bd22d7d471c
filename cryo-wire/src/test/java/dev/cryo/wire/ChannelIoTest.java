package dev.cryo.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** How {@link ChannelIo} writes a frame: whole, in order, and a small one without allocating. */
@Timeout(60)
class ChannelIoTest {

  @TempDir
  Path directory;

  @Test
  void framesOnBothSidesOfTheStagingSizeArriveWholeAndInOrderThroughAFullSocket()
      throws Exception {
    int staging = ChannelIo.STAGING_BYTES;
    int[][] sizes = { // head, payload
        {16, 0}, {16, 1024}, {16, staging - 16}, {16, staging - 15}, {staging, 0},
        {staging + 1, 0}, {40, 1 << 20}, {12, 3}, {staging / 2, staging / 2},
        {staging / 2, staging / 2 + 1}};
    List<byte[]> heads = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int seed = 1;
    for (int[] size : sizes) {
      byte[] head = pattern(size[0], seed++);
      byte[] payload = pattern(size[1], seed++);
      heads.add(head);
      payloads.add(payload);
      expected.write(head);
      expected.write(payload);
    }
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      ChannelIo io = ChannelIo.open(listener.accept(Duration.ofSeconds(10)));
      try {
        CountDownLatch written = new CountDownLatch(1);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
          try {
            // Read only once the writer is blocked on a full socket (or done), then slowly.
            written.await(300, TimeUnit.MILLISECONDS);
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(7_000);
            while (in.size() < expected.size()) {
              buffer.clear();
              int n = peer.read(buffer);
              if (n < 0) {
                break;
              }
              in.write(buffer.array(), 0, n);
            }
            return in.toByteArray();
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
        for (int i = 0; i < heads.size(); i++) {
          io.writeFrame(heads.get(i), payloads.get(i));
        }
        written.countDown();
        assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(expected.toByteArray());
      } finally {
        io.close();
      }
    }
  }

  @Test
  void aSmallFrameIsWrittenWithoutAllocating() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      ChannelIo io = ChannelIo.open(listener.accept(Duration.ofSeconds(10)));
      try {
        byte[] head = pattern(24, 1);
        byte[] payload = pattern(1024, 2);
        ByteBuffer sink = ByteBuffer.allocateDirect(64 * 1024);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
            java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = 0;
        int frames = 0;
        for (int round = 0; round < 40; round++) {
          long before = threads.getCurrentThreadAllocatedBytes();
          for (int i = 0; i < 50; i++) {
            io.writeFrame(head, payload);
          }
          long spent = threads.getCurrentThreadAllocatedBytes() - before;
          if (round >= 20) { // the first rounds load classes and make the staging buffer
            allocated += spent;
            frames += 50;
          }
          drain(peer, sink, 50L * (head.length + payload.length));
        }
        assertThat(allocated / frames).as("bytes allocated per frame of %d + %d bytes",
            head.length, payload.length).isLessThan(16);
      } finally {
        io.close();
      }
    }
  }

  private static void drain(SocketChannel peer, ByteBuffer sink, long bytes) throws IOException {
    long left = bytes;
    while (left > 0) {
      sink.clear();
      int n = peer.read(sink);
      if (n < 0) {
        throw new IOException("end of stream with " + left + " bytes still to come");
      }
      left -= n;
    }
  }

  private static byte[] pattern(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + seed * 7);
    }
    return bytes;
  }
}
