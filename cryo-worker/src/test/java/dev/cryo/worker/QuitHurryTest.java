package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireListener;
import dev.cryo.wire.protocol.FreezeResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.QuitOrder;
import dev.cryo.wire.protocol.QuitResult;
import dev.cryo.wire.protocol.UserOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quit's hurried freeze ({@code freeze_user} with {@code ofQuit}) on the worker's side of the
 * wire: the commander sends it after the quit, but each call runs on a thread of its own, so it can
 * be served first. It then waits for the quit, departs as one of the quit's, and counts in the
 * quit's report; an order that is no quit's does not wait.
 */
class QuitHurryTest {

  @TempDir Path temp;
  private Harness harness;
  private Worker worker;
  private WireEndpoint endpoint;
  private WireListener listener;
  private Wire workerSide;
  private Wire commanderSide;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
    endpoint = new WireEndpoint(() -> {});
    listener = WireListener.bind(temp.resolve("w.sock"));
    CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() -> {
      try {
        return listener.accept(Duration.ofSeconds(10));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    SocketChannel channel = Wire.connect(temp.resolve("w.sock"));
    workerSide = Wire.open(channel, "w1", endpoint, Methods.WORKER_CALLS, Methods.WORKER_EVENTS,
        WireLimits.defaults());
    endpoint.bind(worker, workerSide);
    commanderSide = Wire.open(accepted.get(10, TimeUnit.SECONDS), "commander", new WireHandler() {
      @Override
      public byte[] onCall(String method, byte[] payload) {
        return new byte[0];
      }

      @Override
      public void onEvent(String method, byte[] payload) {}

      @Override
      public void onClosed(String reason) {}
    }, Methods.COMMANDER_CALLS, Methods.COMMANDER_EVENTS, WireLimits.defaults());
  }

  @AfterEach
  void tearDown() throws Exception {
    commanderSide.close();
    workerSide.close();
    listener.close();
    harness.close();
  }

  private FreezeResult freeze(UserOrder order) throws Exception {
    return ProtocolCodec.read(endpoint.onCall(Methods.FREEZE_USER, ProtocolCodec.write(order)),
        FreezeResult.class);
  }

  @Test
  void aQuitsFreezeServedBeforeItsQuitWaitsForTheQuitAndCountsInItsReport() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    Harness.call(worker, increment("cleo", "c3", "p3", "page"));
    assertThat(freeze(UserOrder.of("cleo")).outcome()).as("warms the path up: no quit's, not counted")
        .isEqualTo(FreezeResult.FROZEN);
    CompletableFuture<FreezeResult> hurried = new CompletableFuture<>();
    Thread hurry = Thread.ofPlatform().daemon().start(() -> {
      try {
        hurried.complete(freeze(new UserOrder("anna", true, null)));
      } catch (Throwable e) {
        hurried.completeExceptionally(e);
      }
    });
    // The quit's thread runs late: it starts once the hurried freeze waits for a quit to begin
    // (a condition, not a time: the wait's own bound is what a loaded machine must not eat).
    harness.await("the hurried freeze waits for its quit", () -> hurried.isDone()
        || java.util.Arrays.stream(hurry.getStackTrace()).anyMatch(frame -> frame.getClassName()
            .endsWith(".Departures") && frame.getMethodName().equals("awaitQuit")));
    assertThat(hurried).as("the hurried freeze waits for its quit").isNotDone();
    assertThat(worker.registry().userItems().contains("anna")).isTrue();

    CompletableFuture<QuitResult> quit = CompletableFuture.supplyAsync(() -> {
      try {
        return ProtocolCodec.read(endpoint.onCall(Methods.QUIT,
            ProtocolCodec.write(new QuitOrder(0L, 5_000L))), QuitResult.class);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    harness.await("the quit's report", () -> quit.isDone());

    assertThat(hurried.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(FreezeResult.FROZEN);
    assertThat(quit.get().frozen()).as("anna and bob, both the quit's").isEqualTo(2);
  }
}
