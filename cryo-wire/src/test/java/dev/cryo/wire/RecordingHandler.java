package dev.cryo.wire;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A handler for tests: calls served by a function, events and closes recorded. */
class RecordingHandler implements WireHandler {

  /** Serves one call. */
  interface Serve {
    byte[] serve(String method, byte[] payload) throws Exception;
  }

  /** Echoes the payload. */
  static final Serve ECHO = (method, payload) -> payload;

  volatile Serve serve;
  /** The call methods served inline (asked when the wire opens). */
  volatile java.util.Set<String> inline = java.util.Set.of();
  final List<String> events = new CopyOnWriteArrayList<>();
  /** The thread that handled each event. */
  final List<Thread> eventThreads = new CopyOnWriteArrayList<>();
  final AtomicInteger closes = new AtomicInteger();
  final CountDownLatch closed = new CountDownLatch(1);
  volatile String closeReason;
  private final java.util.concurrent.Semaphore eventsSeen = new java.util.concurrent.Semaphore(0);
  /** Calls a test wants checked when onClosed runs. */
  final List<java.util.concurrent.CompletableFuture<byte[]>> pending = new CopyOnWriteArrayList<>();
  final java.util.concurrent.atomic.AtomicBoolean pendingFailedFirst =
      new java.util.concurrent.atomic.AtomicBoolean();

  RecordingHandler(Serve serve) {
    this.serve = serve;
  }

  RecordingHandler() {
    this(ECHO);
  }

  @Override
  public byte[] onCall(String method, byte[] payload) throws Exception {
    return serve.serve(method, payload);
  }

  @Override
  public boolean servesInline(String method) {
    return inline.contains(method);
  }

  @Override
  public void onEvent(String method, byte[] payload) {
    eventThreads.add(Thread.currentThread());
    events.add(method + ":" + new String(payload, java.nio.charset.StandardCharsets.UTF_8));
    eventsSeen.release();
  }

  @Override
  public void onClosed(String reason) {
    closeReason = reason;
    closes.incrementAndGet();
    closed.countDown();
  }

  /** Waits (bounded) until n more events were handled. */
  void awaitEvents(int n) throws InterruptedException {
    if (!eventsSeen.tryAcquire(n, 10, TimeUnit.SECONDS)) {
      throw new AssertionError(n + " events did not come within 10 s");
    }
  }

  /** Waits (bounded) for onClosed and returns its reason. */
  String awaitClosed() throws InterruptedException {
    if (!closed.await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("onClosed did not run within 10 s");
    }
    return closeReason;
  }
}
