package dev.cryo.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that fails closes the wire before the next writer gets the lock: a call that waited
 * behind it is failed as never sent (so its caller may route it elsewhere), even though the
 * reader thread never sees an end of stream.
 *
 * <p>The peer is a bare socket that stays open and sends nothing, so the wire's reader never
 * sees an end. The wire's writes go through an I/O that blocks the first write until the test
 * breaks it with an {@code IOException} (a broken pipe); a second call waits for the write lock
 * meanwhile. On a real socket the same order comes from a peer that dies while a frame is blocked:
 * the writer may learn of it before the reader does.
 */
@Timeout(60)
class WriteFailureTest {

  @TempDir
  Path directory;

  @Test
  void aCallWaitingBehindAFailedWriteIsFailedAsNeverSent() throws Exception {
    try (WireListener listener = WireListener.bind(directory.resolve("w.sock"));
        SocketChannel peer = Wire.connect(listener.path())) {
      RecordingHandler handler = new RecordingHandler();
      CountDownLatch broken = new CountDownLatch(1);
      SocketChannel accepted = listener.accept(Duration.ofSeconds(10));
      ChannelIo io = new ChannelIo(ChannelIo.open(accepted)) {
        @Override
        void writeFully(ByteBuffer[] bytes) throws IOException {
          awaitUninterruptibly(broken);
          throw new IOException("Broken pipe");
        }
      };
      Wire wire = Wire.serve(io, "commander", handler, WirePair.COMMANDER_CALLS,
          WirePair.COMMANDER_EVENTS, WireLimits.defaults());
      try {
        Thread blockedWriter = Thread.ofPlatform().daemon().start(
            () -> wire.call("http", new byte[16], Duration.ofSeconds(30)));
        awaitInside(blockedWriter, "awaitUninterruptibly");
        CompletableFuture<CompletableFuture<byte[]>> waiting = new CompletableFuture<>();
        Thread waitingWriter = Thread.ofPlatform().daemon().start(
            () -> waiting.complete(wire.call("ping", new byte[0], Duration.ofSeconds(30))));
        awaitInside(waitingWriter, "ReentrantLock");

        broken.countDown(); // the blocked write fails; the reader still sees an open socket

        Throwable failure = failure(waiting.get(20, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOfSatisfying(WireClosedException.class, e -> {
          assertThat(e.sent()).as("the call that waited for the lock: %s", e.getMessage())
              .isFalse();
          assertThat(e.closeReason()).startsWith("write_failed: writing a call failed");
        });
        assertThat(handler.awaitClosed()).startsWith("write_failed:");
      } finally {
        wire.close();
      }
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitInside(Thread thread, String frame) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (Arrays.stream(thread.getStackTrace()).anyMatch(
          e -> (e.getClassName() + "." + e.getMethodName()).contains(frame))) {
        return;
      }
      Thread.sleep(5);
    }
    throw new AssertionError(thread + " never came inside " + frame + ": "
        + Arrays.toString(thread.getStackTrace()));
  }

  private static Throwable failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the future succeeded");
  }
}
