package dev.cryo.admin;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * The live page's server-sent events: each open stream gets the {@link StatusView#liveJson()}
 * document at once, then again every interval, as {@code event: view} messages, until the
 * browser goes away or the admin closes. At most {@code limit} streams are open at once (each holds
 * one virtual thread and one document a tick), so memory never grows with the number of viewers.
 * A new stream past the limit ends the oldest one (at its next tick) and takes its place: whoever
 * holds streams open cannot lock an operator out of the live page (the ended page's browser
 * reconnects by itself after the {@code retry} it was given, and then ends the oldest in turn).
 * Only when no slot frees within two ticks is the new one answered 503 with {@code Retry-After}.
 * Thread-safe.
 */
final class LiveStreams implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(LiveStreams.class.getName());

  private static final String EVENT_STREAM = "text/event-stream; charset=utf-8";

  private final StatusView view;
  private final Duration interval;
  private final Semaphore slots;
  private final CountDownLatch closed = new CountDownLatch(1);
  /** The open streams, oldest first: each ends once its flag is set. */
  private final java.util.Deque<java.util.concurrent.atomic.AtomicBoolean> open =
      new java.util.concurrent.ConcurrentLinkedDeque<>();

  LiveStreams(StatusView view, Duration interval, int limit) {
    this.view = Objects.requireNonNull(view, "view");
    this.interval = Objects.requireNonNull(interval, "interval");
    this.slots = new Semaphore(limit);
  }

  /**
   * Answers a HEAD on the stream: the headers of a stream's start, and the end at once, with no
   * stream slot taken. Any thread.
   */
  void head(Response response, Callback callback) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, EVENT_STREAM);
    response.write(true, ByteBuffer.allocate(0), callback);
  }

  /** Serves one stream on the caller's (virtual) thread until it ends. */
  void serve(Response response, Callback callback) {
    if (!takeSlot()) {
      response.setStatus(503);
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "5");
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.write(true, ByteBuffer.wrap(("{\"error\":\"too_many_streams\",\"message\":\"every"
          + " live stream of the admin listener is taken; close a status page or retry later\"}")
          .getBytes(StandardCharsets.UTF_8)), callback);
      return;
    }
    java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
    open.addLast(ended);
    try {
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, EVENT_STREAM);
      // retry: how long the browser waits before it reconnects by itself after a cut
      if (!send(response, "retry: 2000\n\n".getBytes(StandardCharsets.UTF_8))) {
        callback.failed(new java.io.EOFException("the browser left"));
        return;
      }
      do {
        byte[] document = view.liveJson();
        ByteBuffer message = ByteBuffer.allocate(document.length + 32);
        message.put("event: view\ndata: ".getBytes(StandardCharsets.US_ASCII)).put(document)
            .put("\n\n".getBytes(StandardCharsets.US_ASCII)).flip();
        if (!send(response, message)) {
          callback.failed(new java.io.EOFException("the browser left"));
          return;
        }
      } while (!closed.await(interval.toMillis(), TimeUnit.MILLISECONDS) && !ended.get());
      response.write(true, ByteBuffer.allocate(0), callback);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a live status stream failed: " + e);
      callback.failed(e);
    } finally {
      open.remove(ended);
      slots.release();
    }
  }

  /**
   * Takes a stream slot; when none is free, ends the oldest stream and waits (two ticks at most)
   * for its slot. False when none came.
   */
  private boolean takeSlot() {
    if (slots.tryAcquire()) {
      return true;
    }
    java.util.concurrent.atomic.AtomicBoolean oldest = open.pollFirst();
    if (oldest != null) {
      oldest.set(true);
    }
    try {
      return slots.tryAcquire(2 * interval.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean send(Response response, byte[] bytes) {
    return send(response, ByteBuffer.wrap(bytes));
  }

  /** Writes and waits; false when the browser went away. */
  private static boolean send(Response response, ByteBuffer bytes) {
    try (Blocker.Callback written = Blocker.callback()) {
      response.write(false, bytes, written);
      written.block();
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** Ends every stream after its current message; idempotent. */
  @Override
  public void close() {
    closed.countDown();
  }
}
