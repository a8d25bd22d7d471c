package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who reads a wire (docs/wire.md, "Threads"): a caller waiting on its reply reads the wire itself
 * when nobody else does, a method the handler declares inline is served on the thread that reads,
 * a frame arriving while nobody reads is still read, and an interrupt or a timeout of a caller
 * that reads neither loses a frame nor ends the wire.
 */
@Timeout(60)
class ReadTurnTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir
  Path directory;

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  @Test
  void aCallerWaitingOnItsReplyReadsTheWireItselfAndStillSeesTheEventsBeforeIt() throws Exception {
    AtomicReference<Wire> workerWire = new AtomicReference<>();
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      workerWire.get().event("announce", payload);
      return payload;
    });
    RecordingHandler commanderSide = new RecordingHandler();
    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      workerWire.set(pair.worker);
      Thread me = Thread.currentThread();
      for (int round = 1; round <= 50; round++) {
        assertThat(pair.commander.call("http", bytes("r" + round), LONG).get())
            .isEqualTo(bytes("r" + round));
        assertThat(commanderSide.events).as("events handled when reply %d was returned", round)
            .hasSize(round).last().isEqualTo("announce:r" + round);
      }
      assertThat(commanderSide.eventThreads).as("the threads that handled the events")
          .contains(me);
    }
  }

  @Test
  void anInlineMethodIsServedOnTheThreadThatReadsAndTheOthersOnVirtualThreads() throws Exception {
    AtomicReference<Thread> pingThread = new AtomicReference<>();
    AtomicReference<Thread> httpThread = new AtomicReference<>();
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      (method.equals("ping") ? pingThread : httpThread).set(Thread.currentThread());
      return payload;
    });
    workerSide.inline = Set.of("ping");
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      assertThat(pair.commander.call("ping", bytes("p"), LONG).get()).isEqualTo(bytes("p"));
      assertThat(pair.commander.call("http", bytes("h"), LONG).get()).isEqualTo(bytes("h"));
      assertThat(pingThread.get().isVirtual()).isFalse();
      assertThat(pingThread.get().getName()).isEqualTo("wire-worker-reader");
      assertThat(httpThread.get().isVirtual()).isTrue();
    }
  }

  @Test
  void aFreeTurnGoesBackToTheReaderAfterAMillisecondWhileThePeerCallsAndAfterATickWhenItDoesNot() {
    long[] lastPeerCall = {Long.MIN_VALUE / 2}; // the peer never called
    ReadTurn turn = new ReadTurn(() -> false, () -> 0, () -> lastPeerCall[0]);
    Thread reader = Thread.ofPlatform().unstarted(() -> { });
    turn.start(reader);

    long freed = System.nanoTime();
    turn.yieldFromReader(); // no caller waits: the turn is left free
    assertThat(turn.holder()).isNull();
    assertThat(turn.tick(freed + TimeUnit.MILLISECONDS.toNanos(3)))
        .as("the clock ticks fast for a peer that makes no calls").isFalse();
    assertThat(turn.holder()).as("free for 3 ms, the peer idle").isNull();
    turn.tick(System.nanoTime() + ReadTurn.IDLE_PEER_RECLAIM_NANOS);
    assertThat(turn.holder()).as("free past the idle peer's reclaim").isSameAs(reader);

    turn.yieldFromReader();
    long now = System.nanoTime();
    lastPeerCall[0] = now; // the peer just called
    assertThat(turn.tick(now)).as("the clock ticks fast while the peer calls").isTrue();
    turn.tick(System.nanoTime() + ReadTurn.RECLAIM_NANOS);
    assertThat(turn.holder()).as("free past a millisecond, the peer calling").isSameAs(reader);
  }

  @Test
  void framesArrivingWhileNobodyReadsAreReadAnyway() throws Exception {
    RecordingHandler commanderSide = new RecordingHandler((m, p) -> bytes("c:" + m));
    try (WirePair pair = new WirePair(directory, commanderSide, new RecordingHandler(),
        WireLimits.defaults())) {
      for (int round = 0; round < 20; round++) { // the caller reads: the turn is left free
        pair.commander.call("ping", bytes("x"), LONG).get();
      }
      pair.worker.event("announce", bytes("unasked"));
      commanderSide.awaitEvents(1);
      assertThat(commanderSide.events).containsExactly("announce:unasked");
      assertThat(pair.worker.call("locate", bytes("y"), LONG).get(20, TimeUnit.SECONDS))
          .isEqualTo(bytes("c:locate"));
    }
  }

  @Test
  void anInterruptedCallerStopsReadingAndTheWireGoesOn() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("http")) {
        entered.countDown();
        answer.await();
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      AtomicReference<CompletableFuture<byte[]>> slow = new AtomicReference<>();
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread caller = Thread.ofPlatform().start(() -> {
        try {
          for (int round = 0; round < 5; round++) {
            pair.commander.call("ping", bytes("x"), LONG).get();
          }
          slow.set(pair.commander.call("http", bytes("slow"), LONG));
          slow.get().get();
        } catch (Throwable e) {
          thrown.set(e);
        }
      });
      assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
      caller.interrupt();
      caller.join(20_000);
      assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
      assertThat(pair.commander.isOpen()).isTrue();
      answer.countDown();
      assertThat(slow.get().get(20, TimeUnit.SECONDS)).isEqualTo(bytes("slow"));
      assertThat(pair.commander.call("ping", bytes("after"), LONG).join())
          .isEqualTo(bytes("after"));
      assertThat(pair.worker.isOpen()).isTrue();
    }
  }

  @Test
  void aCallerInJoinKeepsReadingThroughAnInterruptAndGetsItBackAtTheEnd() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("http")) {
        entered.countDown();
        answer.await();
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      AtomicReference<byte[]> got = new AtomicReference<>();
      AtomicBoolean interruptedAfter = new AtomicBoolean();
      Thread caller = Thread.ofPlatform().start(() -> {
        pair.commander.call("ping", bytes("x"), LONG).join();
        got.set(pair.commander.call("http", bytes("kept"), LONG).join());
        interruptedAfter.set(Thread.interrupted());
      });
      assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
      caller.interrupt();
      answer.countDown();
      caller.join(20_000);
      assertThat(got.get()).isEqualTo(bytes("kept"));
      assertThat(interruptedAfter.get()).as("the interrupt is given back").isTrue();
      assertThat(pair.commander.isOpen()).isTrue();
    }
  }

  @Test
  void aTimeoutReachesACallerThatReadsForItsReply() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      if (method.equals("http")) {
        answer.await();
      }
      return payload;
    });
    try (WirePair pair = new WirePair(directory, new RecordingHandler(), workerSide,
        WireLimits.defaults())) {
      pair.commander.call("ping", bytes("x"), LONG).get();
      CompletableFuture<byte[]> call = pair.commander.call("http", bytes("late"),
          Duration.ofMillis(200));
      try {
        call.get();
        throw new AssertionError("the call did not time out");
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(WireTimeoutException.class);
      }
      answer.countDown();
      assertThat(pair.commander.call("ping", bytes("y"), LONG).get()).isEqualTo(bytes("y"));
      assertThat(pair.commander.isOpen()).isTrue();
    }
  }
}
