package dev.cryo.commander;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireRefusal;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.AnnouncementMessage;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.wire.protocol.Locate;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.PushMessage;
import dev.cryo.wire.protocol.PushResult;
import dev.cryo.wire.protocol.ProtocolException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The commander's side of one worker's wire: what it serves. The first frame must be the
 * {@code present} call of the worker that was spawned (its name, the socket it was given); anything
 * else first, or a second presentation, closes the wire. Once presented, {@code announce} events are
 * folded into the {@link Routing} maps on the wire's reader thread, in arrival order, and
 * {@code locate} calls are answered from them. The end of the wire is the worker's death, handed to
 * the {@link Supervisor}. Thread-safe.
 */
final class WorkerLink implements WireHandler {

  private static final System.Logger LOG = System.getLogger(WorkerLink.class.getName());
  private static final byte[] ACCEPTED = "{\"accepted\":true}".getBytes(StandardCharsets.UTF_8);

  /** What the link needs of its supervisor. */
  interface Events {
    /** The order number of the next presentation in the run. */
    long nextOrder();

    /** A presentation was accepted. */
    void presented(WorkerHandle handle);

    /** The wire of {@code handle} ended. */
    void wireClosed(WorkerHandle handle, Wire wire, String reason);

    /** A push of the application (see {@link PushRelay}); the default reaches no page. */
    default PushResult push(PushMessage message) {
      return new PushResult(0, 0);
    }
  }

  private final WorkerHandle handle;
  private final Routing routing;
  private final Events events;
  private final java.time.Clock clock;
  private final java.util.concurrent.CompletableFuture<String> closed =
      new java.util.concurrent.CompletableFuture<>();
  private volatile Wire wire;
  private volatile boolean hostile;
  /** The start attempt this link's wire belongs to: only that attempt's presentation counts. */
  private final int attempt;

  WorkerLink(WorkerHandle handle, Routing routing, Events events, java.time.Clock clock) {
    this.handle = Objects.requireNonNull(handle);
    this.attempt = handle.attemptNumber();
    this.routing = Objects.requireNonNull(routing);
    this.events = Objects.requireNonNull(events);
    this.clock = Objects.requireNonNull(clock);
  }

  /** The wire this link serves, once opened. */
  void attach(Wire opened) {
    wire = opened;
    if (hostile) {
      opened.close();
    }
  }

  /**
   * {@code push} and {@code locate} are served on the thread that reads the wire: each is a lookup
   * in the maps (and, for a push, a hand-off to the front's non-blocking sockets), so a thread of
   * its own would cost more than the call (two of each per click of the demo: docs/benchmarks.md,
   * "HTTP throughput"). The presentation, which starts the run's work, keeps its own thread.
   */
  @Override
  public boolean servesInline(String method) {
    return Methods.PUSH.equals(method) || Methods.LOCATE.equals(method);
  }

  @Override
  public byte[] onCall(String method, byte[] payload) {
    handle.heard();
    if (Methods.PRESENT.equals(method)) {
      return present(payload);
    }
    if (handle.presentation() == null) {
      throw refuseAndClose("the first frame of worker " + handle.name() + " was a '" + method
          + "' call, not its presentation");
    }
    if (Methods.LOCATE.equals(method)) {
      Locate locate = read(payload, Locate.class);
      Routing.Claim claim = routing.locateFor(locate.user(), handle.name());
      dev.cryo.wire.protocol.Location answer = switch (claim.location()) {
        case OnWorker on -> new dev.cryo.wire.protocol.Location(on.worker(), false,
            on.generation(), claim.claimed());
        case Frozen frozen -> new dev.cryo.wire.protocol.Location(null, true,
            frozen.generation(), false);
        case Location.Unknown unknown -> new dev.cryo.wire.protocol.Location(null, false, 0,
            false); // held (being dropped): nowhere, as before the claims
      };
      return ProtocolCodec.write(answer);
    }
    if (Methods.PUSH.equals(method)) {
      return ProtocolCodec.write(events.push(read(payload, PushMessage.class)));
    }
    throw new WireRefusal(RefusalReason.BAD_REQUEST.code(), "the commander serves no '" + method
        + "' call");
  }

  private byte[] present(byte[] payload) {
    Presentation presentation;
    try {
      presentation = ProtocolCodec.read(payload, Presentation.class);
    } catch (ProtocolException e) {
      throw refuseAndClose("the presentation of worker " + handle.name() + " does not read: "
          + e.getMessage());
    }
    if (!presentation.name().equals(handle.name())
        || !presentation.spawn().name().equals(handle.name())
        || !presentation.spawn().wire().equals(handle.spawn().wire())) {
      throw refuseAndClose("a process presented itself as '" + presentation.name() + "' (spawned"
          + " as '" + presentation.spawn().name() + "' on " + presentation.spawn().wire()
          + ") on the socket of worker " + handle.name());
    }
    if (!handle.present(presentation, attempt, events.nextOrder(), clock.instant())) {
      throw refuseAndClose("worker " + handle.name() + " presented itself twice, while "
          + handle.state().code() + ", or on the wire of start attempt " + attempt
          + ", which was given up (the current attempt is " + handle.attemptNumber() + ")");
    }
    events.presented(handle);
    return ACCEPTED;
  }

  @Override
  public void onEvent(String method, byte[] payload) {
    handle.heard();
    if (handle.presentation() == null) {
      refuseAndClose("the first frame of worker " + handle.name() + " was a '" + method
          + "' event, not its presentation");
      return;
    }
    if (!Methods.ANNOUNCE.equals(method)) {
      LOG.log(Level.WARNING, "worker " + handle.name() + " sent an unknown event '" + method
          + "'; it is ignored");
      return;
    }
    AnnouncementMessage message;
    try {
      message = ProtocolCodec.read(payload, AnnouncementMessage.class);
    } catch (ProtocolException e) {
      LOG.log(Level.WARNING, "worker " + handle.name() + " sent an announcement that does not read"
          + " (" + e.getMessage() + "); it is ignored");
      return;
    }
    Optional<AnnouncementKind> kind = AnnouncementKind.ofCode(message.kind());
    if (kind.isEmpty() || message.user() == null) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("worker", handle.name());
      fields.put("seq", message.seq());
      fields.put("message", "an announcement of kind '" + message.kind() + "'"
          + (message.user() == null ? " without a user" : " this commander does not know")
          + " was skipped");
      routing.note("anomaly", fields);
      return;
    }
    routing.fold(handle.name(), new Announcement(message.seq(), kind.get(), message.user(),
        message.keys(), message.detail(), message.generation(), message.request()));
  }

  /** Completes with the wire's close reason once it ended. */
  java.util.concurrent.CompletableFuture<String> closed() {
    return closed;
  }

  @Override
  public void onClosed(String reason) {
    closed.complete(reason);
    events.wireClosed(handle, wire, reason);
  }

  private static <T> T read(byte[] payload, Class<T> type) {
    try {
      return ProtocolCodec.read(payload, type);
    } catch (ProtocolException e) {
      throw new WireRefusal(RefusalReason.BAD_REQUEST.code(), e.getMessage());
    }
  }

  /** Closes the wire (a hostile peer) and returns the refusal to throw. */
  private WireRefusal refuseAndClose(String why) {
    LOG.log(Level.WARNING, why + "; its wire is closed");
    hostile = true;
    Wire current = wire;
    if (current != null) {
      current.close();
    }
    return new WireRefusal(RefusalReason.BAD_REQUEST.code(), why);
  }
}
