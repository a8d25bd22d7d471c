package dev.cryo.wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One end of a wire: calls, replies and events over one connected Unix domain socket, correlated
 * by id (docs/wire.md).
 *
 * <p>Threads: one thread at a time reads the wire, every frame in order: the wire's reader thread
 * (a daemon platform thread), or a caller waiting for its reply on the call's future ({@code get}
 * or {@code join}) while no other thread reads and its call is the only one of this side in
 * flight, which then reads its reply itself and wakes no other thread (docs/wire.md, "Threads"). The thread that reads dispatches each inbound call to a
 * virtual thread of its own (or serves it itself when the handler says the method may be served
 * inline, {@link WireHandler#servesInline}), handles each event itself (so an event is handled
 * before any later frame, the reply of a call included), and completes the future of each reply.
 * Dependent stages attached to a call's future without an executor therefore run on the thread
 * that reads and must not block. Writes come from any thread, one frame at a time under one lock,
 * in the order they took the lock; each frame is written whole. Every public method is
 * thread-safe.
 *
 * <p>A hostile or malformed inbound frame closes this wire with a logged reason; nothing is
 * thrown out of the reader and no other wire notices.
 */
public final class Wire implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Wire.class.getName());

  /** The message of the JDK's SocketException for ECONNRESET. */
  private static final String CONNECTION_RESET = "Connection reset";
  private static final byte[] NO_BYTES = new byte[0];

  private final ChannelIo io;
  private final String name;
  private final WireHandler handler;
  private final Set<String> callMethods;
  /** The call methods the handler serves on the thread that reads ({@link WireHandler#servesInline}). */
  private final Set<String> inlineMethods;
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
  private final FrameReader frames;
  /** Who reads the wire now: the reader thread or a caller waiting for its reply. */
  private final ReadTurn turn;
  /** System.nanoTime of the last inbound call; written by the turn's holder, read by the clock. */
  private volatile long lastInboundCall = Long.MIN_VALUE / 2;
  /** Whether the frame just handled was a reply; written by the turn's holder. */
  private boolean lastWasReply;

  /** A call waiting for its reply until its deadline (System.nanoTime). */
  private record Pending(long id, String method, CompletableFuture<byte[]> future,
      long deadline, Duration timeout, AtomicBoolean written) {
  }

  private Wire(ChannelIo io, String name, WireHandler handler, Set<String> callMethods,
      Set<String> eventMethods, WireLimits limits) {
    this.io = io;
    this.name = name;
    this.handler = handler;
    this.callMethods = callMethods;
    this.eventMethods = eventMethods;
    this.limits = limits;
    Set<String> inline = new java.util.HashSet<>();
    for (String method : callMethods) {
      if (handler.servesInline(method)) {
        inline.add(method);
      }
    }
    this.inlineMethods = Set.copyOf(inline);
    // A platform thread, not a virtual one: between two frames it waits in the kernel and is
    // woken by it directly, where a virtual reader parks in the JDK's poller and costs a poller
    // wake-up and a carrier hand-off per frame (docs/benchmarks.md, "cryo-wire"). One per wire.
    this.reader = Thread.ofPlatform().daemon(true).name("wire-" + name + "-reader")
        .unstarted(this::read);
    this.callThreads = Thread.ofVirtual().name("wire-" + name + "-call-", 1).factory();
    this.frames = new FrameReader(io, limits);
    this.turn = new ReadTurn(frames::hasBuffered, pendingCount::get, () -> lastInboundCall);
  }

  /**
   * Starts serving a connected channel. callMethods/eventMethods: the methods this side accepts
   * inbound; an inbound frame naming another method closes the wire (hostile).
   *
   * @param channel a connected Unix domain socket channel (put in non-blocking mode); the wire
   *     owns it
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
    ChannelIo io;
    try {
      io = ChannelIo.open(channel);
    } catch (IOException e) {
      throw new IllegalStateException("wire " + name + " refused: the channel cannot be put in"
          + " non-blocking mode with its selectors (" + e.getMessage() + ")", e);
    }
    return serve(io, name, handler, calls, events, limits);
  }

  /** Starts serving an open channel's I/O; the methods are checked already (tests' seam). */
  static Wire serve(ChannelIo io, String name, WireHandler handler, Set<String> calls,
      Set<String> events, WireLimits limits) {
    Wire wire = new Wire(io, name, handler, calls, events, limits);
    wire.turn.start(wire.reader);
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
   * when the wire ends (its {@link WireClosedException#sent()} false when the call was never
   * written: it may be made again elsewhere), {@link RemoteFailure}(code, message) when the peer's handler refused.
   *
   * @param method the peer's call method
   * @param payload the call's payload (not copied: do not change it before the future completes)
   * @param timeout how long to wait for the reply (positive)
   * @return the reply's payload, completed on the thread that reads the wire; waiting on it
   *     with {@code get} or {@code join} reads the wire on the waiting thread while no other
   *     thread does (the reply then wakes no other thread)
   * @throws IllegalArgumentException when the method is not a valid name or the timeout is not
   *     positive
   */
  public CompletableFuture<byte[]> call(String method, byte[] payload, Duration timeout) {
    return call(method, payload, timeout, limits.maxPendingCalls());
  }

  /**
   * As {@link #call}, for an order that must not wait behind ordinary calls (a quit, a freeze):
   * refused only once {@link WireLimits#RESERVED_ORDER_CALLS} more calls than
   * {@link WireLimits#maxPendingCalls()} wait for a reply, so that a wire its ordinary calls fill
   * still carries it. The peer counts that reserve in what it accepts.
   */
  public CompletableFuture<byte[]> orderCall(String method, byte[] payload, Duration timeout) {
    return call(method, payload, timeout,
        limits.maxPendingCalls() + WireLimits.RESERVED_ORDER_CALLS);
  }

  private CompletableFuture<byte[]> call(String method, byte[] payload, Duration timeout,
      int bound) {
    Frame.checkName("call method", method);
    Objects.requireNonNull(payload, "payload");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("call refused: the timeout " + timeout
          + " is not positive");
    }
    String reason = closeReason.get();
    if (reason != null) {
      return CompletableFuture.failedFuture(new WireClosedException(name, reason, false));
    }
    long id = nextId.incrementAndGet();
    FrameCodec.Outbound frame;
    try {
      frame = FrameCodec.frame(FrameKind.CALL, id, method, payload, limits);
    } catch (WireRefusedException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (pendingCount.incrementAndGet() > bound) {
      pendingCount.decrementAndGet();
      return CompletableFuture.failedFuture(new WireRefusedException(
          WireException.Reason.TOO_MANY_PENDING, "call " + method + " refused: "
              + bound + " calls already wait for a reply on wire " + name
              + "; nothing was sent; retry once some replies came back"));
    }
    Pending call = new Pending(id, method, new Reply(this),
        System.nanoTime() + timeout.toNanos(), timeout,
        new AtomicBoolean());
    pending.put(id, call);
    if (closeReason.get() != null) {
      failPending();
      return call.future;
    }
    write(frame.head(), frame.payload(), call.written(), "a call");
    return call.future;
  }

  /**
   * One event, written after every frame written before it on this wire (one writer, FIFO).
   *
   * @param method the peer's event method
   * @param payload the event's payload (not copied: written as it is during this call)
   * @throws WireClosedException when the wire is closed (or closes while writing)
   * @throws WireRefusedException FRAME_TOO_LARGE when the frame passes a limit; nothing was sent
   * @throws IllegalArgumentException when the method is not a valid name
   */
  public void event(String method, byte[] payload) throws WireClosedException {
    Frame.checkName("event method", method);
    Objects.requireNonNull(payload, "payload");
    FrameCodec.Outbound frame = FrameCodec.frame(FrameKind.EVENT, 0, method, payload, limits);
    String reason = closeReason.get();
    if (reason != null) {
      throw new WireClosedException(name, reason, false);
    }
    AtomicBoolean written = new AtomicBoolean();
    if (!write(frame.head(), frame.payload(), written, "an event")) {
      throw new WireClosedException(name, closeReason.get(), written.get());
    }
  }

  /**
   * Several events of one method, written after every frame written before them on this wire and
   * next to each other, in the list's order, with one write to the socket: a burst that the peer
   * reads in one go instead of one wake-up per frame. The peer handles them one by one, as if
   * each had come through {@link #event}. Nothing is sent when one of them passes a limit.
   *
   * @param method the peer's event method
   * @param payloads the events' payloads, in the order they are to be handled (may be empty)
   * @throws WireClosedException when the wire is closed (or closes while writing)
   * @throws WireRefusedException FRAME_TOO_LARGE when one frame passes a limit; nothing was sent
   * @throws IllegalArgumentException when the method is not a valid name, or the frames together
   *     pass 2 GiB (nothing was sent)
   */
  public void events(String method, java.util.List<byte[]> payloads) throws WireClosedException {
    Frame.checkName("event method", method);
    Objects.requireNonNull(payloads, "payloads");
    if (payloads.isEmpty()) {
      return;
    }
    byte[] header = FrameCodec.header(FrameKind.EVENT, 0, method, null, null);
    byte[][] frames = new byte[payloads.size()][];
    long total = 0;
    for (int i = 0; i < frames.length; i++) {
      frames[i] = FrameCodec.encode(FrameKind.EVENT, header,
          Objects.requireNonNull(payloads.get(i), "payload"), limits);
      total += frames[i].length;
    }
    if (total > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("events refused: " + frames.length + " frames of "
          + total + " bytes in all do not fit one write; nothing was sent; send fewer at once");
    }
    byte[] burst = new byte[(int) total];
    int at = 0;
    for (byte[] frame : frames) {
      System.arraycopy(frame, 0, burst, at, frame.length);
      at += frame.length;
    }
    String reason = closeReason.get();
    if (reason != null) {
      throw new WireClosedException(name, reason, false);
    }
    AtomicBoolean written = new AtomicBoolean();
    if (!write(burst, NO_BYTES, written, "events")) {
      throw new WireClosedException(name, closeReason.get(), written.get());
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
   * (on the reader thread, once the thread that reads has handled the frame it may be handling).
   * Idempotent.
   */
  @Override
  public void close() {
    closeWith("closed: this side closed the wire", Level.DEBUG);
  }

  @Override
  public String toString() {
    String reason = closeReason.get();
    return "Wire[" + name + (reason == null ? ", open" : ", " + reason) + ", " + pending.size()
        + " pending, " + turn + "]";
  }

  // ---------------------------------------------------------------------------------- reading

  /** How a run of reading ended. */
  private enum ReadEnd { STOPPED, CLOSED }

  /** What the reader thread does while the channel has no byte: wait (its interrupts ignored). */
  private boolean readerWait() throws IOException {
    io.awaitReadable(0);
    return true;
  }

  /**
   * The reader thread's body: it reads while it holds the turn, gives it up when callers read
   * their own replies, and ends the wire (onClosed) once it closed; never throws.
   */
  private void read() {
    try {
      while (true) {
        turn.awaitReader();
        if (!isOpen()) {
          break;
        }
        lastWasReply = false;
        if (readFrames(this::readerWait, this::readerMayYield) == ReadEnd.CLOSED) {
          break;
        }
        turn.yieldFromReader();
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

  private boolean readerMayYield() {
    return lastWasReply && turn.readerMayYield(lastInboundCall, System.nanoTime());
  }

  /**
   * Reads and handles frames on the current thread, which holds the turn, until stop says so
   * after a frame, the wait says so between frames, or the wire ends (closed with its reason).
   */
  private ReadEnd readFrames(FrameReader.Wait wait, java.util.function.BooleanSupplier stop) {
    try {
      while (!stop.getAsBoolean()) {
        if (!isOpen()) {
          return ReadEnd.CLOSED;
        }
        Frame frame = frames.next(wait);
        if (frame == FrameReader.NOT_NOW) {
          return ReadEnd.STOPPED;
        }
        if (frame == null) {
          closeWith("end_of_stream: the peer closed its end of the wire", Level.DEBUG);
          return ReadEnd.CLOSED;
        }
        if (!dispatch(frame)) {
          return ReadEnd.CLOSED;
        }
      }
      return ReadEnd.STOPPED;
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
      LOG.log(Level.ERROR, "wire " + name + ": reading it failed", e);
      closeWith("internal: the reader failed (" + e + ")", Level.ERROR);
    }
    return ReadEnd.CLOSED;
  }

  /**
   * Waits until a reply of this wire is done, reading the wire on this thread while it holds the
   * turn (a follower otherwise, woken when the reply is in or the turn is handed to it).
   *
   * @param interruptible whether an interrupt ends the wait with InterruptedException (else it
   *     is kept and given back when the wait ends)
   * @param timed whether deadline (System.nanoTime) bounds the wait
   * @return false when the deadline passed before the reply
   */
  boolean await(Reply reply, boolean interruptible, boolean timed, long deadline)
      throws InterruptedException {
    if (reply.isDone()) {
      return true;
    }
    Thread me = Thread.currentThread();
    ReadTurn.Follower follower = new ReadTurn.Follower(me, reply);
    reply.whenComplete((bytes, failure) -> wake(me));
    Leading leading = new Leading(reply, interruptible, timed, deadline);
    boolean interrupted = false;
    try {
      while (!reply.isDone()) {
        if (turn.lead(follower)) {
          readFrames(leading, reply::isDone);
          turn.release();
          if (leading.interrupted) {
            leading.interrupted = false;
            if (interruptible) {
              throw new InterruptedException("interrupted while waiting for a reply on wire "
                  + name);
            }
            interrupted = true;
          }
          interrupted |= leading.keptInterrupt;
          leading.keptInterrupt = false;
        } else if (reply.isDone()) {
          // The reply came while lead() waited for the turn's lock: that wait may have used up
          // the unpark meant for this one, so look again before parking, or it is lost.
          break;
        } else if (timed) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return reply.isDone();
          }
          LockSupport.parkNanos(this, left);
        } else {
          LockSupport.park(this);
        }
        if (Thread.interrupted()) {
          if (interruptible) {
            throw new InterruptedException("interrupted while waiting for a reply on wire "
                + name);
          }
          interrupted = true;
        }
        if (timed && !reply.isDone() && deadline - System.nanoTime() <= 0) {
          return false;
        }
      }
      return true;
    } finally {
      turn.leave(follower);
      if (interrupted) {
        me.interrupt();
      }
    }
  }

  /** The thread that holds the right to read this wire now, null when none (a diagnosis). */
  Thread readingThread() {
    return turn.holder();
  }

  /** Whether the current thread reads this wire now (it may not wait for a reply by reading). */
  boolean readsOnCurrentThread() {
    return turn.heldBy(Thread.currentThread());
  }

  /** Wakes a thread waiting for its reply: out of its wait for bytes, or out of its park. */
  private void wake(Thread waiter) {
    if (turn.heldBy(waiter)) {
      if (Thread.currentThread() != waiter) {
        io.wakeReader();
      }
    } else {
      LockSupport.unpark(waiter);
    }
  }

  /** A caller's wait for bytes while it reads for its reply. */
  private final class Leading implements FrameReader.Wait {
    private final Reply reply;
    private final boolean interruptible;
    private final boolean timed;
    private final long deadline;
    /** An interrupt stopped the reading (interruptible waits). */
    boolean interrupted;
    /** An interrupt came and was set aside (uninterruptible waits). */
    boolean keptInterrupt;

    Leading(Reply reply, boolean interruptible, boolean timed, long deadline) {
      this.reply = reply;
      this.interruptible = interruptible;
      this.timed = timed;
      this.deadline = deadline;
    }

    @Override
    public boolean await() throws IOException {
      if (reply.isDone()) {
        return false;
      }
      long millis = 0;
      if (timed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        millis = Math.max(1, (left + 999_999) / 1_000_000);
      }
      if (io.awaitReadable(millis)) {
        if (interruptible) {
          interrupted = true;
          return false;
        }
        keptInterrupt = true;
      }
      return !reply.isDone();
    }
  }

  /** Handles one frame on the thread that reads; false when it closed the wire. */
  private boolean dispatch(Frame frame) {
    lastWasReply = frame.kind() == FrameKind.REPLY || frame.kind() == FrameKind.ERROR;
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
    lastInboundCall = System.nanoTime();
    if (inlineMethods.contains(frame.method())) {
      serve(frame);
    } else {
      callThreads.newThread(() -> serve(frame)).start();
    }
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

  /**
   * Runs one inbound call's handler and writes its reply: on a virtual thread of its own, or on
   * the thread that reads for a method the handler serves inline.
   */
  private void serve(Frame call) {
    FrameCodec.Outbound frame;
    try {
      byte[] reply = handler.onCall(call.method(), call.payload());
      if (reply == null) {
        throw new NullPointerException("the handler returned null for " + call.method());
      }
      frame = FrameCodec.frame(FrameKind.REPLY, call.id(), call.method(), reply, limits);
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
    write(frame.head(), frame.payload(), null, "a reply");
  }

  private FrameCodec.Outbound errorFrame(Frame call, String code, String message) {
    return FrameCodec.frame(FrameKind.ERROR,
        FrameCodec.header(FrameKind.ERROR, call.id(), call.method(), code, message), new byte[0],
        limits);
  }

  // ------------------------------------------------------------------------- writing, closing

  /**
   * Writes one whole frame (or burst) under the write lock, on the calling thread: its head and
   * its payload, in that order, as {@link ChannelIo#writeFrame} writes them. The writer's
   * interrupt status is set aside for the write and given back after it: one interrupted caller
   * (a request given up by its client) neither cuts a frame nor ends the wire of every other.
   *
   * <p>A failed write closes the wire before the lock is let go: a call waiting for the lock then
   * finds the wire closed and is failed as never sent, even when the reader thread has not yet
   * seen the end of the stream (a peer that died, or stopped reading, while a frame was blocked).
   *
   * @param head the frame's prelude and header (or a whole burst of frames)
   * @param payload the frame's payload, written right after the head (empty for none)
   * @param written set once the lock is held and the wire still open (from then on the frame's
   *     bytes may reach the peer); null when the caller need not know (a reply)
   * @param what what is written, for the close reason ("a call", "a reply", ...)
   * @return whether the frame was written whole; false when the wire was or became closed
   */
  private boolean write(byte[] head, byte[] payload, AtomicBoolean written, String what) {
    boolean closedHere = false;
    writeLock.lock();
    try {
      if (closeReason.get() != null) { // closed while this writer waited for the lock: not sent
        return false;
      }
      if (written != null) {
        written.set(true); // from here on, some of it may reach the peer
      }
      io.writeFrame(head, payload);
      return true;
    } catch (IOException e) {
      closedHere = markClosed("write_failed: writing " + what + " failed (" + e.getMessage()
          + ")", Level.WARNING);
      return false;
    } finally {
      writeLock.unlock();
      if (closedHere) {
        finishClose();
      }
    }
  }

  /**
   * Called by {@link Timeouts} on its thread: abandons the ids of the calls past their deadline,
   * then fails their futures (and closes the wire past the abandoned bound) on a virtual thread,
   * so that no caller's dependent stage runs on the clock's thread.
   */
  /**
   * The clock's tick ({@link Timeouts}): expires the overdue calls and gives a turn left free
   * back to the reader thread.
   *
   * @return whether the turn was free at some moment since the last tick
   */
  boolean tick(long now) {
    expireOverdue(now);
    return turn.tick(now);
  }

  private void expireOverdue(long now) {
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
        call.future().completeExceptionally(
            new WireClosedException(name, reason, call.written().get()));
      }
    }
  }

  /** Closes the wire once with a reason; later reasons are ignored. */
  private void closeWith(String reason, Level level) {
    if (markClosed(reason, level)) {
      finishClose();
    }
  }

  /** Sets the close reason, first come only: whether this caller closed the wire. */
  private boolean markClosed(String reason, Level level) {
    if (!closeReason.compareAndSet(null, reason)) {
      return false;
    }
    LOG.log(level, () -> "wire " + name + " closed: " + reason);
    return true;
  }

  /** The rest of a close, by the one who marked it, outside the write lock. */
  private void finishClose() {
    Timeouts.forget(this);
    try {
      io.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, () -> "wire " + name + ": closing its channel failed: " + e);
    }
    failPending();
    turn.close();
  }
}
