package dev.cryo.wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One end of a wire: calls, replies and events over one connected Unix domain socket, correlated
 * by id (docs/wire.md).
 *
 * <p>Threads: one reader thread per wire (a daemon platform thread, see docs/wire.md) reads every
 * frame in order; it dispatches each
 * inbound call to a virtual thread of its own, handles each event itself (so an event is handled
 * before any later frame, the reply of a call included), and completes the future of each reply.
 * Dependent stages attached to a call's future without an executor therefore run on the reader
 * thread and must not block. Writes come from any thread, one frame at a time under one lock, in
 * the order they took the lock; each frame is written whole. Every public method is thread-safe.
 *
 * <p>A hostile or malformed inbound frame closes this wire with a logged reason; nothing is
 * thrown out of the reader and no other wire notices.
 */
public final class Wire implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Wire.class.getName());

  /** The message of the JDK's SocketException for ECONNRESET. */
  private static final String CONNECTION_RESET = "Connection reset";

  private final SocketChannel channel;
  private final String name;
  private final WireHandler handler;
  private final Set<String> callMethods;
  private final Set<String> eventMethods;
  private final WireLimits limits;

  /** Fair: writers that wait get the channel in the order they came (FIFO). */
  private final ReentrantLock writeLock = new ReentrantLock(true);
  private final AtomicLong nextId = new AtomicLong();
  private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicInteger pendingCount = new AtomicInteger();
  /** Ids of timed-out calls, with their method: a late reply is dropped, not hostile. */
  private final ConcurrentHashMap<Long, String> abandoned = new ConcurrentHashMap<>();
  /** Ids of inbound calls whose handlers run. */
  private final Set<Long> inbound = ConcurrentHashMap.newKeySet();
  private final AtomicReference<String> closeReason = new AtomicReference<>();
  private final Thread reader;
  private final ThreadFactory callThreads;

  /** A call waiting for its reply until its deadline (System.nanoTime). */
  private record Pending(long id, String method, CompletableFuture<byte[]> future,
      long deadline, Duration timeout) {
  }

  private Wire(SocketChannel channel, String name, WireHandler handler, Set<String> callMethods,
      Set<String> eventMethods, WireLimits limits) {
    this.channel = channel;
    this.name = name;
    this.handler = handler;
    this.callMethods = callMethods;
    this.eventMethods = eventMethods;
    this.limits = limits;
    // A platform thread, not a virtual one: between two frames it blocks in the kernel's read and
    // is woken by it directly, where a virtual reader parks in the JDK's poller and costs a poller
    // wake-up and a carrier hand-off per frame (docs/benchmarks.md, "cryo-wire"). One per wire.
    this.reader = Thread.ofPlatform().daemon(true).name("wire-" + name + "-reader")
        .unstarted(this::read);
    this.callThreads = Thread.ofVirtual().name("wire-" + name + "-call-", 1).factory();
  }

  /**
   * Starts serving a connected channel. callMethods/eventMethods: the methods this side accepts
   * inbound; an inbound frame naming another method closes the wire (hostile).
   *
   * @param channel a connected Unix domain socket channel (put in blocking mode); the wire owns it
   * @param name the wire's name in logs, thread names and messages (for instance the worker's)
   * @param handler serves this side's inbound calls and events
   * @param callMethods the methods of the calls this side serves
   * @param eventMethods the methods of the events this side accepts
   * @param limits the bounds of the wire ({@link WireLimits#defaults()})
   * @return the open wire, its reader running
   * @throws IllegalArgumentException when a method name is not valid (docs/wire.md)
   * @throws IllegalStateException when the channel is not connected
   */
  public static Wire open(SocketChannel channel, String name, WireHandler handler,
      Set<String> callMethods, Set<String> eventMethods, WireLimits limits) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(limits, "limits");
    Set<String> calls = Set.copyOf(callMethods);
    Set<String> events = Set.copyOf(eventMethods);
    calls.forEach(method -> Frame.checkName("call method", method));
    events.forEach(method -> Frame.checkName("event method", method));
    if (!channel.isConnected()) {
      throw new IllegalStateException("wire " + name + " refused: the channel is not connected");
    }
    try {
      channel.configureBlocking(true);
    } catch (IOException e) {
      throw new IllegalStateException("wire " + name + " refused: the channel cannot block", e);
    }
    Wire wire = new Wire(channel, name, handler, calls, events, limits);
    Timeouts.watch(wire);
    wire.reader.start();
    return wire;
  }

  /**
   * Connects to a Unix socket path (the worker side).
   *
   * @param socket the socket's path (106 bytes at most)
   * @return the connected channel, blocking, for {@link #open}
   * @throws IllegalArgumentException when the path is 107 bytes or longer
   * @throws IOException when nothing listens there
   */
  public static SocketChannel connect(Path socket) throws IOException {
    UnixDomainSocketAddress address = WireListener.address(socket);
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      channel.connect(address);
      return channel;
    } catch (IOException e) {
      channel.close();
      throw new IOException("cannot connect to the wire at " + socket + " (" + e.getMessage()
          + "); nothing was opened; is its commander listening?", e);
    }
  }

  /**
   * One call. Fails (the future, never a throw) with {@link WireRefusedException} when the
   * pending-call limit (256) is reached (nothing was sent) or the frame is too large, {@link
   * WireTimeoutException} after timeout (within 10 ms after it; its id is abandoned: a late reply
   * is dropped; past the abandoned-id limit (256) the wire closes), {@link WireClosedException}
   * when the wire ends, {@link RemoteFailure}(code, message) when the peer's handler refused.
   *
   * @param method the peer's call method
   * @param payload the call's payload (not copied: do not change it before the future completes)
   * @param timeout how long to wait for the reply (positive)
   * @return the reply's payload, completed on the reader thread
   * @throws IllegalArgumentException when the method is not a valid name or the timeout is not
   *     positive
   */
  public CompletableFuture<byte[]> call(String method, byte[] payload, Duration timeout) {
    Frame.checkName("call method", method);
    Objects.requireNonNull(payload, "payload");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("call refused: the timeout " + timeout
          + " is not positive");
    }
    String reason = closeReason.get();
    if (reason != null) {
      return CompletableFuture.failedFuture(new WireClosedException(name, reason));
    }
    long id = nextId.incrementAndGet();
    byte[] frame;
    try {
      frame = FrameCodec.encode(FrameKind.CALL,
          FrameCodec.header(FrameKind.CALL, id, method, null, null), payload, limits);
    } catch (WireRefusedException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (pendingCount.incrementAndGet() > limits.maxPendingCalls()) {
      pendingCount.decrementAndGet();
      return CompletableFuture.failedFuture(new WireRefusedException(
          WireException.Reason.TOO_MANY_PENDING, "call " + method + " refused: "
              + limits.maxPendingCalls() + " calls already wait for a reply on wire " + name
              + "; nothing was sent; retry once some replies came back"));
    }
    Pending call = new Pending(id, method, new CompletableFuture<>(),
        System.nanoTime() + timeout.toNanos(), timeout);
    pending.put(id, call);
    if (closeReason.get() != null) {
      failPending();
      return call.future;
    }
    try {
      write(frame);
    } catch (IOException e) {
      closeWith("write_failed: writing a call failed (" + e.getMessage() + ")", Level.WARNING);
    }
    return call.future;
  }

  /**
   * One event, written after every frame written before it on this wire (one writer, FIFO).
   *
   * @param method the peer's event method
   * @param payload the event's payload
   * @throws WireClosedException when the wire is closed (or closes while writing)
   * @throws WireRefusedException FRAME_TOO_LARGE when the frame passes a limit; nothing was sent
   * @throws IllegalArgumentException when the method is not a valid name
   */
  public void event(String method, byte[] payload) throws WireClosedException {
    Frame.checkName("event method", method);
    Objects.requireNonNull(payload, "payload");
    byte[] frame = FrameCodec.encode(FrameKind.EVENT,
        FrameCodec.header(FrameKind.EVENT, 0, method, null, null), payload, limits);
    String reason = closeReason.get();
    if (reason != null) {
      throw new WireClosedException(name, reason);
    }
    try {
      write(frame);
    } catch (IOException e) {
      closeWith("write_failed: writing an event failed (" + e.getMessage() + ")", Level.WARNING);
      throw new WireClosedException(name, closeReason.get());
    }
  }

  /** Whether the wire is open (nothing closed it yet). */
  public boolean isOpen() {
    return closeReason.get() == null;
  }

  /** The wire's name, as given to {@link #open}. */
  public String name() {
    return name;
  }

  /**
   * Closes the channel; pending calls fail with {@link WireClosedException}; onClosed runs once
   * (on the reader thread, once the event it may be handling returns). Idempotent.
   */
  @Override
  public void close() {
    closeWith("closed: this side closed the wire", Level.DEBUG);
  }

  @Override
  public String toString() {
    String reason = closeReason.get();
    return "Wire[" + name + (reason == null ? ", open" : ", " + reason) + ", " + pending.size()
        + " pending]";
  }

  // ---------------------------------------------------------------------------------- reading

  /** The reader thread's body: frames in order until the wire ends; never throws. */
  private void read() {
    FrameReader frames = new FrameReader(channel, limits);
    try {
      while (true) {
        Frame frame = frames.next();
        if (frame == null) {
          closeWith("end_of_stream: the peer closed its end of the wire", Level.DEBUG);
          break;
        }
        if (!dispatch(frame)) {
          break;
        }
      }
    } catch (MalformedFrameException e) {
      closeWith(e.reason(), Level.WARNING);
    } catch (ClosedChannelException e) {
      closeWith("closed: the channel was closed", Level.DEBUG);
    } catch (IOException e) {
      if (e instanceof SocketException && CONNECTION_RESET.equals(e.getMessage())) {
        // ECONNRESET: the peer's socket closed with bytes of this side unread, as when the
        // peer's process dies in the middle of its work: the same death as an end of stream.
        closeWith("end_of_stream: the peer reset the connection (it ended with frames of this"
            + " side unread)", Level.DEBUG);
      } else {
        closeWith("read_failed: reading the wire failed (" + e.getMessage() + ")", Level.WARNING);
      }
    } catch (RuntimeException | Error e) {
      LOG.log(Level.ERROR, "wire " + name + ": its reader failed", e);
      closeWith("internal: the reader failed (" + e + ")", Level.ERROR);
    } finally {
      failPending();
      try {
        handler.onClosed(closeReason.get());
      } catch (RuntimeException | Error e) {
        LOG.log(Level.ERROR, "wire " + name + ": its handler's onClosed failed", e);
      }
    }
  }

  /** Handles one frame on the reader thread; false when it closed the wire. */
  private boolean dispatch(Frame frame) {
    return switch (frame.kind()) {
      case CALL -> acceptCall(frame);
      case EVENT -> acceptEvent(frame);
      case REPLY, ERROR -> acceptReply(frame);
    };
  }

  private boolean acceptCall(Frame frame) {
    if (!callMethods.contains(frame.method())) {
      return hostile("unknown_method: a call names '" + frame.method()
          + "', which this side does not serve");
    }
    if (inbound.size() >= limits.maxInboundCalls()) {
      return hostile("too_many_calls: the peer has more than " + limits.maxInboundCalls()
          + " calls in flight on this side");
    }
    if (!inbound.add(frame.id())) {
      return hostile("duplicate_id: the peer reused the id " + frame.id()
          + " of a call still being served");
    }
    callThreads.newThread(() -> serve(frame)).start();
    return true;
  }

  private boolean acceptEvent(Frame frame) {
    if (!eventMethods.contains(frame.method())) {
      return hostile("unknown_method: an event names '" + frame.method()
          + "', which this side does not accept");
    }
    try {
      handler.onEvent(frame.method(), frame.payload());
    } catch (RuntimeException | Error e) {
      LOG.log(Level.ERROR, "wire " + name + ": the handler of event " + frame.method()
          + " failed; the event is lost and the wire goes on", e);
    }
    return true;
  }

  private boolean acceptReply(Frame frame) {
    Pending call = pending.remove(frame.id());
    if (call == null) {
      String method = abandoned.remove(frame.id());
      if (method == null) {
        return hostile("unknown_id: a reply names the id " + frame.id()
            + ", which no call of this side waits for");
      }
      if (!method.equals(frame.method())) {
        return hostile("method_mismatch: the late reply to call " + frame.id() + " names '"
            + frame.method() + "', the call was '" + method + "'");
      }
      LOG.log(Level.DEBUG, () -> "wire " + name + ": dropped the late reply to " + method
          + " (id " + frame.id() + "), abandoned at its timeout");
      return true;
    }
    settle(call);
    if (!call.method().equals(frame.method())) {
      hostile("method_mismatch: the reply to call " + frame.id() + " names '" + frame.method()
          + "', the call was '" + call.method() + "'");
      call.future().completeExceptionally(new WireClosedException(name, closeReason.get()));
      return false;
    }
    if (frame.kind() == FrameKind.REPLY) {
      call.future().complete(frame.payload());
    } else {
      call.future().completeExceptionally(
          new RemoteFailure(call.method(), frame.code(), frame.message()));
    }
    return true;
  }

  private boolean hostile(String reason) {
    closeWith(reason, Level.WARNING);
    return false;
  }

  // ---------------------------------------------------------------------------------- serving

  /** Runs one inbound call's handler on its own virtual thread and writes its reply. */
  private void serve(Frame call) {
    byte[] frame;
    try {
      byte[] reply = handler.onCall(call.method(), call.payload());
      if (reply == null) {
        throw new NullPointerException("the handler returned null for " + call.method());
      }
      frame = FrameCodec.encode(FrameKind.REPLY,
          FrameCodec.header(FrameKind.REPLY, call.id(), call.method(), null, null), reply, limits);
    } catch (WireRefusal refusal) {
      frame = errorFrame(call, refusal.code(), String.valueOf(refusal.getMessage()));
    } catch (Exception | Error e) {
      LOG.log(Level.ERROR, "wire " + name + ": the handler of call " + call.method() + " (id "
          + call.id() + ") failed; the caller gets an error reply 'internal'", e);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      frame = errorFrame(call, "internal", "the peer failed to serve " + call.method()
          + "; it logged why");
    } finally {
      inbound.remove(call.id());
    }
    if (closeReason.get() != null) {
      return;
    }
    try {
      write(frame);
    } catch (IOException e) {
      closeWith("write_failed: writing a reply failed (" + e.getMessage() + ")", Level.WARNING);
    }
  }

  private byte[] errorFrame(Frame call, String code, String message) {
    return FrameCodec.encode(FrameKind.ERROR,
        FrameCodec.header(FrameKind.ERROR, call.id(), call.method(), code, message), new byte[0],
        limits);
  }

  // ------------------------------------------------------------------------- writing, closing

  /**
   * Writes one whole frame under the write lock. The writer's interrupt status is set aside for
   * the write: a socket channel closes itself when a thread with its interrupt status set writes
   * to it, and one interrupted caller (a request given up by its client) must not end the wire of
   * every other. An interrupt that lands while the write blocks still closes it.
   */
  private void write(byte[] frame) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(frame);
    boolean interrupted = Thread.interrupted();
    writeLock.lock();
    try {
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    } finally {
      writeLock.unlock();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Called by {@link Timeouts} on its thread: abandons the ids of the calls past their deadline,
   * then fails their futures (and closes the wire past the abandoned bound) on a virtual thread,
   * so that no caller's dependent stage runs on the clock's thread.
   */
  void expireOverdue(long now) {
    List<Pending> expired = null;
    for (Pending call : pending.values()) {
      if (now - call.deadline() < 0) {
        continue;
      }
      // Abandoned before it leaves the map: a reply racing with the expiry finds it in one of them.
      abandoned.put(call.id(), call.method());
      if (pending.remove(call.id(), call)) {
        pendingCount.decrementAndGet();
        (expired == null ? expired = new ArrayList<>() : expired).add(call);
      } else {
        abandoned.remove(call.id()); // its reply (or the wire's end) came first
      }
    }
    if (expired != null) {
      List<Pending> failed = expired;
      Thread.startVirtualThread(() -> fail(failed));
    }
  }

  private void fail(List<Pending> expired) {
    for (Pending call : expired) {
      call.future().completeExceptionally(new WireTimeoutException("call " + call.method()
          + " (id " + call.id() + ") on wire " + name + " got no reply within " + call.timeout()
          + "; its id is abandoned (a late reply will be dropped) and the wire stays open"));
    }
    if (abandoned.size() > limits.maxAbandonedIds()) {
      closeWith("too_many_abandoned: more than " + limits.maxAbandonedIds()
          + " calls timed out without a reply", Level.WARNING);
    }
  }

  /** Takes a call out of the count (it was removed from the map). */
  private void settle(Pending call) {
    pendingCount.decrementAndGet();
  }

  /** Fails every pending call with WireClosedException. */
  private void failPending() {
    String reason = closeReason.get();
    for (Pending call : pending.values()) {
      if (pending.remove(call.id(), call)) {
        settle(call);
        call.future().completeExceptionally(new WireClosedException(name, reason));
      }
    }
  }

  /** Closes the wire once with a reason; later reasons are ignored. */
  private void closeWith(String reason, Level level) {
    if (!closeReason.compareAndSet(null, reason)) {
      return;
    }
    LOG.log(level, () -> "wire " + name + " closed: " + reason);
    Timeouts.forget(this);
    try {
      channel.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, () -> "wire " + name + ": closing its channel failed: " + e);
    }
    failPending();
  }
}
