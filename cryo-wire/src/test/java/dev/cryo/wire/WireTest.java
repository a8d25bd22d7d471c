package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class WireTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir
  Path directory;

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("the future did not fail in time", e);
    }
    throw new AssertionError("the future succeeded");
  }

  @Test
  void callsGoBothWaysAndCarryTheirPayloads() throws Exception {
    RecordingHandler commanderSide = new RecordingHandler((m, p) -> bytes("c:" + m + ":"
        + new String(p, UTF_8)));
    RecordingHandler workerSide = new RecordingHandler((m, p) -> bytes("w:" + m + ":"
        + new String(p, UTF_8)));
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      assertThat(new String(pair.commander.call("ping", bytes("x"), LONG).join(), UTF_8))
          .isEqualTo("w:ping:x");
      assertThat(new String(pair.worker.call("locate", bytes("y"), LONG).join(), UTF_8))
          .isEqualTo("c:locate:y");
      assertThat(pair.commander.call("quit", new byte[0], LONG).join()).isEqualTo(bytes("w:quit:"));
    }
  }

  @Test
  void largePayloadsCrossWhole() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      byte[] big = new byte[WireLimits.DEFAULT_MAX_FRAME_BYTES - 200];
      new java.util.Random(7).nextBytes(big);
      assertThat(pair.commander.call("http", big, LONG).join()).isEqualTo(big);
    }
  }

  /**
   * A call's payload goes to the socket as it is, not copied into a frame array first: the
   * calling thread allocates far less than the payload for the whole call (its writing included).
   * The worker side reads and checks it whole.
   */
  @Test
  void aCallIsWrittenWithoutCopyingItsPayload() throws Exception {
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      for (int i = 0; i < payload.length; i++) {
        if (payload[i] != (byte) i) {
          return bytes("changed at " + i);
        }
      }
      return bytes("whole " + payload.length);
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      byte[] big = new byte[4 << 20];
      for (int i = 0; i < big.length; i++) {
        big[i] = (byte) i;
      }
      com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
          java.lang.management.ManagementFactory.getThreadMXBean();
      assertThat(pair.commander.call("ping", new byte[8], LONG).get(20, TimeUnit.SECONDS))
          .isNotNull(); // the classes of a call loaded before counting
      long before = threads.getCurrentThreadAllocatedBytes();
      CompletableFuture<byte[]> reply = pair.commander.call("http", big, LONG);
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      assertThat(new String(reply.get(20, TimeUnit.SECONDS), UTF_8))
          .isEqualTo("whole " + big.length);
      assertThat(allocated).as("bytes allocated by call() for a payload of %d", big.length)
          .isLessThan(big.length / 4);
    }
  }

  @Test
  void aRefusalReachesTheCallerWithItsCodeAndAnyOtherFailureAsInternal() throws Exception {
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("ping")) {
        throw new WireRefusal("user_left", "he went to the freezer");
      }
      if (method.equals("http")) {
        throw new IllegalStateException("a bug in the worker");
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      Throwable refused = failure(pair.commander.call("ping", new byte[0], LONG));
      assertThat(refused).isInstanceOfSatisfying(RemoteFailure.class, remote -> {
        assertThat(remote.code()).isEqualTo("user_left");
        assertThat(remote.message()).isEqualTo("he went to the freezer");
      });
      Throwable internal = failure(pair.commander.call("http", new byte[0], LONG));
      assertThat(internal).isInstanceOfSatisfying(RemoteFailure.class, remote -> {
        assertThat(remote.code()).isEqualTo("internal");
        assertThat(remote.message()).doesNotContain("a bug in the worker");
      });
      assertThat(pair.commander.isOpen()).isTrue();
      assertThat(pair.commander.call("quit", bytes("ok"), LONG).join()).isEqualTo(bytes("ok"));
    }
  }

  @Test
  void eventsWrittenBeforeAReplyAreHandledBeforeItsFutureCompletes() throws Exception {
    AtomicReference<Wire> workerWire = new AtomicReference<>();
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      int n = Integer.parseInt(new String(payload, UTF_8));
      for (int i = 0; i < n; i++) {
        workerWire.get().event("announce", bytes(Integer.toString(i)));
      }
      return payload;
    });
    RecordingHandler commanderSide = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      workerWire.set(pair.worker);
      int expected = 0;
      for (int round = 1; round <= 50; round++) {
        expected += round;
        int seenNow = expected;
        AtomicInteger seenAtCompletion = new AtomicInteger(-1);
        pair.commander.call("http", bytes(Integer.toString(round)), LONG)
            .thenRun(() -> seenAtCompletion.set(commanderSide.events.size())).join();
        assertThat(seenAtCompletion.get()).as("events seen when reply %d completed", round)
            .isEqualTo(seenNow);
      }
      List<String> expectedOrder = new ArrayList<>();
      for (int round = 1; round <= 50; round++) {
        for (int i = 0; i < round; i++) {
          expectedOrder.add("announce:" + i);
        }
      }
      assertThat(commanderSide.events).containsExactlyElementsOf(expectedOrder);
    }
  }

  @Test
  void manyConcurrentCallsBothWaysEachGetTheirOwnReply() throws Exception {
    RecordingHandler echoSlowly = new RecordingHandler((method, payload) -> {
      Thread.yield();
      return payload;
    });
    RecordingHandler echo = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, echo, echoSlowly, WireLimits.defaults())) {
      int callsPerSide = 3000;
      // Each side stays under its 256 pending calls.
      Semaphore[] windows = {new Semaphore(200), new Semaphore(200)};
      List<CompletableFuture<Boolean>> checks = new ArrayList<>();
      for (int i = 0; i < callsPerSide * 2; i++) {
        Semaphore window = windows[i % 2];
        window.acquire();
        byte[] payload = bytes("payload-" + i);
        Wire from = i % 2 == 0 ? pair.commander : pair.worker;
        String method = i % 2 == 0 ? "http" : "locate";
        checks.add(from.call(method, payload, LONG)
            .thenApply(reply -> java.util.Arrays.equals(reply, payload))
            .whenComplete((ok, e) -> window.release()));
      }
      assertThat(CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new))
          .thenApply(x -> checks.stream().filter(CompletableFuture::join).count())
          .get(40, TimeUnit.SECONDS)).isEqualTo(callsPerSide * 2L);
      assertThat(pair.commander.isOpen()).isTrue();
      assertThat(pair.worker.isOpen()).isTrue();
    }
  }

  @Test
  void callsRunConcurrentlyOnTheServingSide() throws Exception {
    CountDownLatch allIn = new CountDownLatch(20);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      allIn.countDown();
      if (!allIn.await(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("calls were served one at a time");
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        calls.add(pair.commander.call("http", bytes("c" + i), LONG));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(calls.get(i).join()).isEqualTo(bytes("c" + i));
      }
    }
  }

  @Test
  void theCallPastThePendingLimitIsRefusedBeforeSending() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger served = new AtomicInteger();
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      served.incrementAndGet();
      release.await(30, TimeUnit.SECONDS);
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 256; i++) {
        calls.add(pair.commander.call("http", bytes("c" + i), LONG));
      }
      CompletableFuture<byte[]> refused = pair.commander.call("http", bytes("one too many"), LONG);
      assertThat(refused).isCompletedExceptionally();
      assertThat(failure(refused)).isInstanceOfSatisfying(WireRefusedException.class,
          e -> assertThat(e.reason()).isEqualTo(WireException.Reason.TOO_MANY_PENDING));
      release.countDown();
      for (CompletableFuture<byte[]> call : calls) {
        call.get(20, TimeUnit.SECONDS);
      }
      assertThat(served.get()).isEqualTo(256);
      assertThat(pair.commander.call("http", bytes("again"), LONG).join()).isEqualTo(bytes("again"));
    }
  }

  /**
   * A drain during a reload lost 168 users: the quit was refused by the commander's side, behind
   * the 256 requests already waiting on the worker. An order draws from its own reserve, and the
   * peer, which counts that reserve, serves it rather than calling the wire hostile.
   */
  @Test
  void anOrderGetsThroughAWireItsOrdinaryCallsFill() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("http")) {
        release.await(30, TimeUnit.SECONDS);
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 256; i++) {
        calls.add(pair.commander.call("http", bytes("c" + i), LONG));
      }
      assertThat(pair.commander.call("quit", bytes("ordinary"), LONG))
          .isCompletedExceptionally();
      List<CompletableFuture<byte[]>> orders = new ArrayList<>();
      for (int i = 0; i < WireLimits.RESERVED_ORDER_CALLS; i++) {
        orders.add(pair.commander.orderCall("quit", bytes("q" + i), LONG));
      }
      for (int i = 0; i < orders.size(); i++) {
        assertThat(orders.get(i).get(20, TimeUnit.SECONDS)).isEqualTo(bytes("q" + i));
      }
      assertThat(calls).noneMatch(CompletableFuture::isDone); // the orders went past them
      release.countDown();
      for (CompletableFuture<byte[]> call : calls) {
        call.get(20, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aTimedOutCallIsAbandonedAndItsLateReplyDropped() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch replied = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("http")) {
        release.await(30, TimeUnit.SECONDS);
        Thread.startVirtualThread(replied::countDown);
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      long start = System.nanoTime();
      Throwable timedOut = failure(pair.commander.call("http", bytes("slow"),
          Duration.ofMillis(100)));
      assertThat(timedOut).isInstanceOf(WireTimeoutException.class)
          .hasMessageContaining("abandoned");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
          Duration.ofMillis(100));
      release.countDown();
      assertThat(replied.await(10, TimeUnit.SECONDS)).isTrue();
      // The late reply arrives, is dropped; the wire stays open and serves the next call.
      assertThat(pair.commander.call("ping", bytes("next"), LONG).join()).isEqualTo(bytes("next"));
      assertThat(pair.commander.isOpen()).isTrue();
    }
  }

  @Test
  void pastTheAbandonedBoundTheWireCloses() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      never.await(30, TimeUnit.SECONDS);
      return payload;
    });
    RecordingHandler commanderSide = new RecordingHandler();
    WireLimits limits = new WireLimits(1 << 20, 4096, 256, 4);
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide, limits)) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(pair.commander.call("http", bytes("c" + i), Duration.ofMillis(20)));
      }
      for (CompletableFuture<byte[]> call : calls) {
        assertThat(failure(call)).isInstanceOf(WireTimeoutException.class);
      }
      assertThat(pair.commander.isOpen()).as("4 abandoned ids are within the bound").isTrue();
      CompletableFuture<byte[]> fifth = pair.commander.call("http", bytes("c5"),
          Duration.ofMillis(20));
      assertThat(failure(fifth)).isInstanceOf(WireTimeoutException.class);
      assertThat(commanderSide.awaitClosed()).startsWith("too_many_abandoned:");
      assertThat(pair.commander.isOpen()).isFalse();
      never.countDown();
    }
  }

  @Test
  void endOfStreamFailsPendingCallsThenCallsOnClosedOnce() throws Exception {
    CountDownLatch arrived = new CountDownLatch(3);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      arrived.countDown();
      new CountDownLatch(1).await(30, TimeUnit.SECONDS);
      return payload;
    });
    RecordingHandler commanderSide = new RecordingHandler() {
      @Override
      public void onClosed(String reason) {
        pendingFailedFirst.set(pending.stream().allMatch(CompletableFuture::isCompletedExceptionally));
        super.onClosed(reason);
      }
    };
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      for (int i = 0; i < 3; i++) {
        commanderSide.pending.add(pair.commander.call("http", bytes("c" + i), LONG));
      }
      assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
      pair.worker.close(); // the peer dies
      assertThat(commanderSide.awaitClosed()).startsWith("end_of_stream:");
      for (CompletableFuture<byte[]> call : commanderSide.pending) {
        assertThat(failure(call)).as("a call the peer had received")
            .isInstanceOfSatisfying(WireClosedException.class,
                e -> assertThat(e.sent()).isTrue());
      }
      assertThat(commanderSide.pendingFailedFirst.get()).isTrue();
      assertThat(workerSide.awaitClosed()).startsWith("closed:");
      pair.commander.close();
      assertThat(commanderSide.closes.get()).isEqualTo(1);
      assertThat(failure(pair.commander.call("ping", new byte[0], LONG)))
          .as("a call made after the end: never written, so it may be made again elsewhere")
          .isInstanceOfSatisfying(WireClosedException.class, e -> {
            assertThat(e.sent()).isFalse();
            assertThat(e.getMessage()).contains("nothing was sent");
          });
      assertThatThrownBy(() -> pair.commander.event("note", new byte[0]))
          .isInstanceOfSatisfying(WireClosedException.class,
              e -> assertThat(e.sent()).isFalse());
    }
  }

  @Test
  void closeFailsPendingCallsAndCallsOnClosedOnce() throws Exception {
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      new CountDownLatch(1).await(30, TimeUnit.SECONDS);
      return payload;
    });
    RecordingHandler commanderSide = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      CompletableFuture<byte[]> call = pair.commander.call("http", bytes("c"), LONG);
      pair.commander.close();
      pair.commander.close();
      assertThat(failure(call)).isInstanceOf(WireClosedException.class);
      assertThat(commanderSide.awaitClosed()).startsWith("closed:");
      assertThat(workerSide.awaitClosed()).startsWith("end_of_stream:");
      assertThat(commanderSide.closes.get()).isEqualTo(1);
    }
  }

  @Test
  void aFramePastTheLimitIsRefusedBeforeSendingAndTheWireStaysOpen() throws Exception {
    WireLimits limits = new WireLimits(64 * 1024, 4096, 256, 256);
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), new RecordingHandler(),
        limits)) {
      Throwable refused = failure(pair.commander.call("http", new byte[64 * 1024], LONG));
      assertThat(refused).isInstanceOfSatisfying(WireRefusedException.class,
          e -> assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE));
      assertThatThrownBy(() -> pair.worker.event("announce", new byte[64 * 1024]))
          .isInstanceOf(WireRefusedException.class);
      assertThat(pair.commander.call("http", new byte[1000], LONG).join()).hasSize(1000);
      assertThat(pair.commander.isOpen()).isTrue();
    }
  }

  @Test
  void aReplyPastTheLimitBecomesAnInternalErrorReply() throws Exception {
    WireLimits limits = new WireLimits(64 * 1024, 4096, 256, 256);
    RecordingHandler workerSide = new RecordingHandler((m, p) -> new byte[100 * 1024]);
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide, limits)) {
      assertThat(failure(pair.commander.call("http", new byte[0], LONG)))
          .isInstanceOfSatisfying(RemoteFailure.class, e -> assertThat(e.code()).isEqualTo("internal"));
      assertThat(pair.commander.isOpen()).isTrue();
    }
  }

  @Test
  void argumentsAreChecked() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      assertThatThrownBy(() -> pair.commander.call("bad method", new byte[0], LONG))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> pair.commander.call("ping", new byte[0], Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new WireRefusal("", "x")).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new WireLimits(1000, 64, 1, 1))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aCallTheLocalSideDoesNotKnowIsRefusedByThePeerAsHostile() throws Exception {
    RecordingHandler workerSide = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      // "present" is a commander method: the worker does not serve it and closes the wire.
      assertThat(failure(pair.commander.call("present", new byte[0], LONG)))
          .isInstanceOf(WireClosedException.class);
      assertThat(workerSide.awaitClosed()).startsWith("unknown_method:");
    }
  }

  @Test
  void anInterruptedCallerDoesNotCloseTheWire() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      Thread.currentThread().interrupt();
      CompletableFuture<byte[]> call = pair.commander.call("ping", bytes("a"), LONG);
      pair.worker.event("announce", bytes("b"));
      assertThat(Thread.interrupted()).as("the interrupt status is given back").isTrue();
      assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(bytes("a"));
      assertThat(pair.commander.isOpen()).isTrue();
      assertThat(pair.worker.isOpen()).isTrue();
    }
  }

  @Test
  void completionIsNotAffectedByACallerThatThrows() throws Exception {
    try (WirePair pair = new WirePair(directory)) {
      CompletableFuture<byte[]> call = pair.commander.call("ping", bytes("a"), LONG);
      CompletableFuture<Object> dependent = call.thenApply(reply -> {
        throw new IllegalStateException("the caller's own bug");
      });
      assertThat(failure(dependent)).isInstanceOf(IllegalStateException.class);
      assertThat(pair.commander.call("ping", bytes("b"), LONG).join()).isEqualTo(bytes("b"));
    }
  }
}
