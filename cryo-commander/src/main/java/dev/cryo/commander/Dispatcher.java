package dev.cryo.commander;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.commander.Verdict.AwaitStart;
import dev.cryo.commander.Verdict.Grow;
import dev.cryo.commander.Verdict.Place;
import dev.cryo.commander.Verdict.Saturated;
import dev.cryo.wire.RemoteFailure;
import dev.cryo.wire.WireClosedException;
import dev.cryo.wire.WireRefusedException;
import dev.cryo.wire.WireTimeoutException;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.HttpResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.MoveInfo;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.wire.protocol.UserOrder;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Serves one HTTP request: resolve the connection's user → wait while he is held → (a move route:
 * move him first) → place → call his worker ({@code http}, with the verdict "frozen" when the maps
 * say so) → on a retryable refusal route again → the reply. Every wait and retry of one request
 * shares one budget, the hold ({@link CommanderConfig#hold()}, 5 s). Never throws: 503 with
 * {@code Retry-After} when held past the budget or not running, and with {@code Cryo-Reason:
 * saturated} too when no worker admits the user and none may start (a new user as well: the cap
 * {@code --max-users-per-worker} counts the births in flight, {@link BirthsInFlight}); 502 when the worker
 * died during the call after its frame was written (a call never sent is routed again: it did
 * nothing on the worker); 504 when it did not answer within the call timeout; 500 for a refusal
 * that no retry can mend. A request whose cookie a login or a logout retired (the worker refuses
 * it {@code stale_credential}: the connection's credential travels with it, the maps keep no
 * trace of it) is answered {@link Reply#forgotten}, as a connection the run does not know: the
 * front serves it again as a new guest's. Thread-safe; each request runs on its caller's thread.
 */
final class Dispatcher {

  private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());
  /** The header naming the worker and the generation that served a reply, when asked for. */
  static final String PLACEMENT_HEADER = "Cryo-Placement";
  /** The pause before routing again after a refusal that needs the worker to progress first. */
  private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final CommanderConfig config;
  private final Routing routing;
  private final Supervisor supervisor;
  private final Placement placement;
  private final Mover mover;
  private final Object placementLock;
  private final BooleanSupplier running;
  private final Listeners listeners;
  /** Whether a page socket may be bound anywhere: when not, a call's pushes need no relay. */
  private final BooleanSupplier socketsBound;

  Dispatcher(CommanderConfig config, Routing routing, Supervisor supervisor, Placement placement,
      Mover mover, Object placementLock, BooleanSupplier running, Listeners listeners,
      BooleanSupplier socketsBound) {
    this.socketsBound = socketsBound;
    this.config = config;
    this.routing = routing;
    this.supervisor = supervisor;
    this.placement = placement;
    this.mover = mover;
    this.placementLock = placementLock;
    this.running = running;
    this.listeners = listeners;
  }

  Reply serve(Request request) {
    try {
      return route(request);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unavailable("the request was interrupted");
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "serving " + request.method() + " " + request.path() + " failed", e);
      return Reply.text(500, "internal error");
    }
  }

  private Reply route(Request request) throws InterruptedException {
    Birth birth = new Birth();
    try {
      return route(request, birth);
    } finally {
      birth.end();
    }
  }

  /**
   * A request's birth in flight, when its last round placed him as one: counted against his worker
   * ({@link BirthsInFlight}) from its placement until the round's call ended — the next round's
   * decision, or the request's end, ends it. Confined to the request's thread.
   */
  private static final class Birth {
    private BirthsInFlight.Ticket ticket;

    void hold(BirthsInFlight.Ticket next) {
      end();
      ticket = next;
    }

    void end() {
      if (ticket != null) {
        ticket.close();
        ticket = null;
      }
    }
  }

  private Reply route(Request request, Birth birth) throws InterruptedException {
    if (!running.getAsBoolean()) {
      return unavailable("the server is not running");
    }
    long deadline = System.nanoTime() + config.hold().toNanos();
    String connection = request.connectionId();
    MoveInfo move = null;
    boolean moveTried = false;
    String problem = null;
    boolean justMoved = false;
    String missing = null; // the user whose parcel the last round found missing
    int unlocated = 0; // rounds that found the connection's user gone from the maps
    for (int round = 0; ; round++) {
      if (round > 0 && !justMoved && System.nanoTime() - deadline > 0) {
        if (missing != null) {
          return missingState(missing, problem);
        }
        return unavailable("the request could not be placed within " + config.hold() + ": "
            + problem);
      }
      if (!running.getAsBoolean()) {
        return unavailable("the server is not running");
      }
      justMoved = false; // a done move is dispatched even when it took the whole budget
      String user = routing.userOf(connection).orElse(null);
      if (user == null && request.fromCookie()) {
        return Reply.forgotten(connection); // never a user made on an id a client brought
      }
      if (user != null) {
        if (!awaitUnheld(user, deadline)) {
          return unavailable("'" + user + "' is being moved or frozen and was still held after "
              + config.hold());
        }
        if (!Objects.equals(routing.userOf(connection).orElse(null), user)) {
          problem = "the connection changed hands while it waited";
          continue;
        }
      }
      if (!moveTried && isMoveRoute(request)) {
        moveTried = true;
        if (user == null) {
          move = new MoveInfo(null, null, MoveOutcome.Refusal.NOT_RESIDENT.code());
        } else {
          MoveOutcome outcome = mover.move(user, deadline);
          move = new MoveInfo(outcome.from(), outcome.to(),
              outcome.moved() ? null : outcome.refusal().code());
          justMoved = true;
          continue; // resolve again: he is frozen and bound for his destination now
        }
      }
      if (user != null) {
        beforeLocate.accept(user);
      }
      Location location = user == null ? Location.UNKNOWN : routing.locate(user);
      if (user != null && location instanceof Location.Unknown) {
        // Forgotten (his worker's death was folded) between the two reads: never a birth on his
        // connection's id; the next round reads the connection again.
        problem = "'" + user + "' was forgotten while his request was routed";
        if (unlocated++ > 0) {
          pause(deadline); // a link the maps keep without its user: not a race, do not spin
        }
        continue;
      }
      long seen = supervisor.generation();
      birth.end(); // the last round's call ended: his announcement, if any, is folded
      Decision decision = decide(user, location);
      birth.hold(decision.birth());
      WorkerHandle worker;
      if (decision == Decision.WOKEN) { // his location is stale: read it again, nothing was sent
        problem = "he was no longer frozen when his request was bound (another request woke him)";
        continue;
      }
      switch (decision.verdict()) {
        case Saturated saturated -> {
          return saturated(saturated.reason());
        }
        case Grow grow -> {
          problem = "a new worker was starting";
          awaitStart(decision.started(), deadline);
          continue;
        }
        case AwaitStart await -> {
          problem = "a new worker was starting";
          supervisor.awaitChange(seen, deadline);
          continue;
        }
        case Place place -> {
          Optional<WorkerHandle> found = supervisor.running(place.worker())
              .filter(handle -> handle.wire() != null && handle.wire().isOpen());
          if (found.isEmpty()) { // dead and not buried yet: nothing was sent, route again
            problem = "worker " + place.worker() + " stopped running";
            if (location instanceof Frozen) { // a frozen user bound to a dead worker: bind anew
              routing.unbindFrozen(user, place.worker());
            }
            supervisor.awaitChange(seen, Math.min(deadline, System.nanoTime()
                + RETRY_PAUSE_NANOS));
            continue;
          }
          worker = found.get();
        }
      }
      boolean frozen = location instanceof Frozen;
      Grant grant = grantOf(location, decision);
      HttpCall call = new HttpCall(user, connection, grant, request.method(), request.path(),
          request.query(), headersOf(request), request.body(), move,
          socketsBound.getAsBoolean() ? null : Boolean.TRUE, request.credential(),
          request.successor());
      beforeSend.accept(user, worker.name());
      byte[] bytes = null;
      long began = System.nanoTime();
      boolean answered = false;
      try {
        bytes = worker.wire().call(Methods.HTTP, ProtocolCodec.write(call), config.callTimeout())
            .get();
        answered = true;
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        answered = cause instanceof RemoteFailure;
        if (cause instanceof RemoteFailure failure) {
          worker.heard();
          if (RefusalReason.of(failure.code()) == RefusalReason.STALE_CREDENTIAL) {
            return Reply.forgotten(connection); // a retired cookie: the front makes a new guest
          }
          Optional<Reply> finalReply = refused(failure, worker, user, frozen);
          if (finalReply.isPresent()) {
            return finalReply.get();
          }
          problem = "worker " + worker.name() + " refused it (" + failure.code() + ": "
              + failure.message() + ")";
          RefusalReason reason = RefusalReason.of(failure.code());
          missing = reason == RefusalReason.NO_PARCEL ? user : null;
          if (reason != RefusalReason.USER_LEFT_FROZEN) {
            pause(deadline);
          }
          continue;
        }
        if (cause instanceof WireClosedException closed) {
          if (!running.getAsBoolean()) {
            return unavailable("the server stopped during the request");
          }
          if (!closed.sent()) { // nothing reached the worker: route again once its death folds
            problem = "worker " + worker.name() + " died before the request was sent to it";
            continue;
          }
          return Reply.text(502, "the worker serving this request died during it: the request"
              + " reached it, and it may have acted on it before it died; check before you retry");
        }
        if (cause instanceof WireRefusedException) { // nothing was sent: wait a little, again
          problem = "worker " + worker.name() + " has too many calls pending";
          pause(deadline);
          continue;
        }
        if (cause instanceof WireTimeoutException) {
          return Reply.text(504, "the worker did not answer within " + config.callTimeout());
        }
        LOG.log(Level.ERROR, "the call to worker " + worker.name() + " failed", cause);
        return Reply.text(500, "internal error");
      } finally {
        listeners.workerCall(worker.name(), frozen, answered, System.nanoTime() - began);
      }
      worker.heard();
      HttpResult result = ProtocolCodec.read(bytes, HttpResult.class);
      checkOrdering(worker, connection, result);
      List<Map.Entry<String, String>> headers = entries(result.headers());
      if (frozen && unreadable(headers)) { // answered by the worker's host: still frozen, kept
        routing.unbindFrozen(user, worker.name()); // any worker may try, a newer version too
        LOG.log(Level.WARNING, "worker " + worker.name() + " cannot read the parcels of '" + user
            + "'; he stays frozen, his parcels kept");
      }
      if (config.placementHeader()) {
        headers.add(Map.entry(PLACEMENT_HEADER, "worker=" + worker.name() + "; generation="
            + grant.generation()));
      }
      return new Reply(result.status(), headers, result.body());
    }
  }

  /**
   * Whether a served reply is the worker host's answer to state it cannot read: its
   * {@code Cryo-Reason} names {@link RefusalReason#UNREADABLE_PARCEL}.
   */
  private static boolean unreadable(List<Map.Entry<String, String>> headers) {
    for (Map.Entry<String, String> header : headers) {
      if (header.getKey().equalsIgnoreCase("Cryo-Reason")
          && RefusalReason.of(header.getValue()) == RefusalReason.UNREADABLE_PARCEL) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits while {@code user} is held, telling the listeners how long when a hold stood. A user held
   * because his worker quits is asked of that worker first ({@link #hurry}).
   */
  private boolean awaitUnheld(String user, long deadline) throws InterruptedException {
    Optional<Hold> hold = routing.holdOf(user);
    if (hold.isEmpty()) {
      return true; // free: the common path takes the routing lock once, as awaitUnheld would
    }
    long found = System.nanoTime();
    if (hold.get().reason() == HoldReason.QUITTING) {
      hold.get().hurryOnceOrdered(() -> hurry(user)); // after the quit order: it counts him
    }
    boolean released = routing.awaitUnheld(user, deadline);
    listeners.heldWait(user, released, System.nanoTime() - found);
    return released;
  }

  /**
   * Orders the quitting worker of {@code user} to freeze him now, so that a request waiting for him
   * waits for his own freeze, not for the rest of the quit's departures (which go in the worker's
   * order). The order is not waited for: the hold is released by his {@code user_frozen} fold, as
   * the quit's own departure would release it, and a failed or refused order changes nothing (the
   * quit freezes him in its turn). Once per hold, sent after the quit's own order, so his freeze is
   * one of the quit's ({@link Hold#hurryOnceOrdered}). Runs on the request's thread or the
   * quitter's, and never blocks.
   */
  private void hurry(String user) {
    if (!(routing.locate(user) instanceof Location.OnWorker on)) {
      return; // frozen meanwhile
    }
    Optional<WorkerHandle> quitting = supervisor.workers().stream()
        .filter(handle -> handle.name().equals(on.worker())
            && handle.state() == WorkerState.QUITTING
            && handle.wire() != null && handle.wire().isOpen())
        .findFirst();
    if (quitting.isEmpty()) {
      return; // done or dead: its report's fold or its death releases the hold
    }
    UserOrder order = new UserOrder(user, true, on.generation() == 0 ? null : on.generation());
    quitting.get().wire().orderCall(Methods.FREEZE_USER, ProtocolCodec.write(order),
        config.orderTimeout()).whenComplete((reply, failure) -> {
          if (failure != null) {
            LOG.log(Level.DEBUG, "the early freeze of '" + user + "' on quitting worker "
                + on.worker() + " was not done (" + failure + "); the quit freezes him in turn");
          }
        });
  }

  /**
   * A refusal's reply when no retry can mend it ({@link RefusalReason#isRetryable()} false: the
   * reason's {@link RefusalReason#status()}); empty when the request is routed again.
   */
  private Optional<Reply> refused(RemoteFailure failure, WorkerHandle worker, String user,
      boolean frozen) {
    RefusalReason reason = RefusalReason.of(failure.code());
    if (reason.isRetryable()) {
      if ((frozen && reason == RefusalReason.WAKE_FAILED) || reason == RefusalReason.NO_PARCEL) {
        // still frozen, parcels as they were: any worker may try (a drain's may not be written yet)
        routing.unbindFrozen(user, worker.name());
      }
      return Optional.empty();
    }
    if (reason == RefusalReason.UNREADABLE_PARCEL) {
      routing.unbindFrozen(user, worker.name()); // still frozen, parcels kept: any worker may try
      LOG.log(Level.WARNING, "worker " + worker.name() + " cannot read the parcels of '" + user
          + "': " + failure.message());
      return Optional.of(Reply.text(reason.status(), "Your saved state could not be read by the"
          + " version of the application running now: it was written by another version ("
          + failure.message() + "). It is kept, untouched, in the server's freezer; nothing was"
          + " lost. Try again once the application is upgraded, or tell the operator ('cryo"
          + " freezer ls' shows it as unreadable). Reason: " + reason.code() + ".",
          Map.entry("Retry-After", "60"), Map.entry("Cryo-Reason", reason.code())));
    }
    if (reason == RefusalReason.COOKIE_ROTATED) { // sent before the browser took the login's
      return Optional.of(Reply.text(reason.status(), "The request carried a cookie a login or a"
          + " logout on its connection retired moments ago (" + failure.message() + "); nothing"
          + " was served and no cookie is set. Reason: " + reason.code() + ".",
          Map.entry("Retry-After", "0"), Map.entry("Cryo-Reason", reason.code())));
    }
    LOG.log(Level.ERROR, "worker " + worker.name() + " refused a request of '" + user + "' ("
        + failure.code() + "): " + failure.message());
    return Optional.of(Reply.text(reason.status(), "internal error"));
  }

  /**
   * The reply when a frozen user's parcel stayed missing for the whole hold: the maps are wrong
   * about him, and keeping him frozen would refuse him for ever. He is forgotten, named as lost
   * ({@link Routing#forgetMissing}), and told so: his next request starts afresh.
   */
  private Reply missingState(String user, String problem) {
    routing.forgetMissing(user, problem);
    return Reply.text(503, "Your saved state could not be found in the server's freezer (" + problem
        + "). The server has forgotten it: your next request starts afresh, as a new visitor."
        + " Tell the operator if this keeps happening (the run's events name you as lost)."
        + " Reason: no_parcel.", Map.entry("Retry-After", "1"),
        Map.entry("Cryo-Reason", RefusalReason.NO_PARCEL.code()));
  }

  /**
   * The grant a call goes out with ({@link Grant}): for a user living on a worker, his stay's
   * generation; for a frozen one, the wake bound for the worker chosen, from the parcel of the
   * generation he was frozen at; for one the maps do not know (a connection never seen), a birth at
   * a new generation. A call decided on a reading the maps have left behind meanwhile is refused
   * by its worker and routed again: it never makes a second copy.
   */
  private Grant grantOf(Location location, Decision decision) {
    return switch (location) {
      case OnWorker on -> Grant.live(on.generation());
      case Frozen frozen -> Grant.wake(decision.bound().wakeGeneration(),
          decision.bound().generation());
      case Location.Unknown unknown -> Grant.birth(routing.nextGeneration());
    };
  }

  /**
   * A verdict, the start of the new worker when it is {@link Grow}, and for a frozen user his
   * location bound for the worker chosen; {@link #WOKEN} when the user read as frozen is not frozen
   * any more.
   */
  private record Decision(Verdict verdict, CompletableFuture<WorkerHandle> started,
      Frozen bound, BirthsInFlight.Ticket birth) {
    /** He was woken (by another request) after his location was read: locate him again. */
    static final Decision WOKEN = new Decision(null, null, null, null);

    Decision(Verdict verdict, CompletableFuture<WorkerHandle> started, Frozen bound) {
      this(verdict, started, bound, null);
    }
  }

  /**
   * A test seam: runs with the user's name when a request that read him frozen is about to bind
   * him, outside every lock (a test holds the window between the read and the bind open with it).
   */
  private volatile Consumer<String> beforeBind = user -> { };

  /**
   * A test seam: runs with the user's name and his worker's as a request's call is about to be
   * sent, its routing decided, outside every lock (a test moves him away in that window).
   */
  private volatile java.util.function.BiConsumer<String, String> beforeSend = (user, worker) -> { };

  /**
   * A test seam: runs with the user's name between the read of a request's connection and the read
   * of where its user lives, outside every lock (a test buries his worker in that window).
   */
  private volatile Consumer<String> beforeLocate = user -> { };

  /** Sets the {@linkplain #beforeLocate test seam}; for tests only. */
  void beforeLocate(Consumer<String> hook) {
    beforeLocate = Objects.requireNonNull(hook, "hook");
  }

  /** Sets the {@linkplain #beforeSend test seam}; for tests only. */
  void beforeSend(java.util.function.BiConsumer<String, String> hook) {
    beforeSend = Objects.requireNonNull(hook, "hook");
  }

  /** Sets the {@linkplain #beforeBind test seam}; for tests only. */
  void beforeBind(Consumer<String> hook) {
    beforeBind = Objects.requireNonNull(hook, "hook");
  }

  /**
   * Decides where the request goes. A user living on a worker takes no lock (the common path). A
   * birth (a connection the maps do not know) is decided under the placement lock and counted
   * against the worker chosen in the same step ({@link BirthsInFlight}), so that a burst of new
   * connections never admits past {@code --max-users-per-worker}; a frozen user is bound for the
   * worker chosen under the same lock. A {@link Grow} starts the worker under it, so the next
   * decision counts it as starting.
   */
  private Decision decide(String user, Location location) {
    if (location instanceof OnWorker) { // nothing to bind, count or grow: no lock
      return new Decision(placement.forRequest(user, location, supervisor.views(),
          supervisor.starting()), null, null);
    }
    if (location instanceof Location.Unknown) {
      synchronized (placementLock) {
        Verdict verdict = placement.forRequest(user, location, supervisor.views(),
            supervisor.starting());
        if (verdict instanceof Place place) {
          return new Decision(verdict, null, null, supervisor.births().begin(place.worker()));
        }
        if (verdict instanceof Grow) {
          return new Decision(verdict, supervisor.startWorker(), null);
        }
        return new Decision(verdict, null, null);
      }
    }
    beforeBind.accept(user);
    synchronized (placementLock) {
      Verdict verdict = placement.forRequest(user, location, supervisor.views(),
          supervisor.starting());
      if (verdict instanceof Place place) {
        // Every request of a burst goes where the first went: one worker wakes him, once. When he
        // is not frozen any more (a request woke him after his location was read), the call must
        // not go out marked frozen to placement's choice, where no parcel waits for it.
        return routing.bindFrozen(user, place.worker())
            .map(bound -> new Decision(new Place(bound.destination()), null, bound))
            .orElse(Decision.WOKEN);
      }
      if (verdict instanceof Grow) { // started under the lock: the next decision counts it
        return new Decision(verdict, supervisor.startWorker(), null);
      }
      return new Decision(verdict, null, null);
    }
  }

  private static void awaitStart(CompletableFuture<WorkerHandle> started, long deadline)
      throws InterruptedException {
    try {
      started.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // decided again at the next round, against the same deadline
    }
  }

  private static void pause(long deadline) throws InterruptedException {
    long nanos = Math.min(RETRY_PAUSE_NANOS, deadline - System.nanoTime());
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos); // a retry's backoff, not a synchronisation
    }
  }

  private boolean isMoveRoute(Request request) {
    for (WorkerHandle handle : supervisor.workers()) {
      if (handle.isRunning()) {
        return MoveRoutes.matches(handle.moveRoutes(), request.method(), request.path());
      }
    }
    return false;
  }

  /** The ordering rule, checked: the announcements a reply's call caused were folded before it. */
  private void checkOrdering(WorkerHandle worker, String connection, HttpResult result) {
    long folded = routing.lastSequence(worker.name());
    if (folded < result.watermark()) {
      routing.anomaly(worker.name(), result.watermark(), "a reply with watermark "
          + result.watermark() + " came when only " + folded + " announcements were folded: the"
          + " ordering rule is broken");
    }
    if (result.user() != null
        && !result.user().equals(routing.userOf(connection).orElse(result.user()))) {
      LOG.log(Level.WARNING, "worker " + worker.name() + " says connection " + connection
          + " belongs to '" + result.user() + "', the maps say '"
          + routing.userOf(connection).orElse(null) + "'");
    }
  }

  /**
   * The reply when nobody can take the request's user now: 503 with {@code Retry-After} and
   * {@code Cryo-Reason: saturated}; nothing was placed or changed, and the user (if any) stays
   * where he was.
   */
  private Reply saturated(String why) {
    return Reply.text(503, "The server is saturated: " + why + ". Nothing was changed; try again"
        + " later. Reason: saturated.", Map.entry("Retry-After",
        Long.toString(config.retryAfterSeconds())), Map.entry("Cryo-Reason", "saturated"));
  }

  private Reply unavailable(String why) {
    return Reply.unavailable(config.retryAfterSeconds(), why);
  }

  private static List<List<String>> headersOf(Request request) {
    List<List<String>> headers = new ArrayList<>(request.headers().size());
    for (Map.Entry<String, String> header : request.headers()) {
      headers.add(List.of(header.getKey(), header.getValue()));
    }
    return headers;
  }

  private static List<Map.Entry<String, String>> entries(List<List<String>> headers) {
    List<Map.Entry<String, String>> entries = new ArrayList<>(headers.size());
    for (List<String> header : headers) {
      if (header.size() == 2 && header.get(0) != null && header.get(1) != null) {
        entries.add(Map.entry(header.get(0), header.get(1)));
      }
    }
    return entries;
  }
}
