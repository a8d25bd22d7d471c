package dev.cryo.commander;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.commander.MoveOutcome.Refusal;
import dev.cryo.commander.Verdict.AwaitStart;
import dev.cryo.commander.Verdict.Grow;
import dev.cryo.commander.Verdict.Place;
import dev.cryo.commander.Verdict.Saturated;
import dev.cryo.wire.WireClosedException;
import dev.cryo.wire.WireTimeoutException;
import dev.cryo.wire.protocol.FreezeResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.UserOrder;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Moves a user: picks another worker that admits him (or starts one), holds him with that
 * destination, orders his worker to freeze him, and lets the fold of {@code user_frozen} release
 * the hold: his next request is placed on the destination with the verdict "frozen". When no other
 * worker can take him, nothing is held or frozen. Every move, done or refused, is an event
 * ({@code move}): a done one is written by the fold of its {@code user_frozen}, so it precedes the
 * adoption it leads to. Thread-safe; a move blocks its caller for at most the order timeout plus the
 * start of a worker.
 *
 * <h2>The verdict</h2>
 * A move is done exactly when the fold that released its hold was the {@code user_frozen} that put
 * him in the freezer ({@link Hold.Ending.Froze}): that fold wrote the done {@code move} event, and
 * the outcome is {@link MoveOutcome#moved} with that fold's worker and the hold's destination,
 * whatever the freeze order's reply said or whether it came. Any other ending (his worker's death,
 * a drop, the mover's own release after a failed or unanswered order) makes it refused, with the
 * reason the order's reply or failure gives, and only then is a refused {@code move} event written:
 * each move has one event, and its outcome agrees with it. The maps are never read again once the
 * order went out: when the fold releases the hold, his waiting requests may wake him on the
 * destination before the reply reaches the mover, so where he lives then says nothing of the move.
 */
final class Mover {

  private static final System.Logger LOG = System.getLogger(Mover.class.getName());

  private final CommanderConfig config;
  private final Routing routing;
  private final Supervisor supervisor;
  private final Placement placement;
  private final Object placementLock;
  private final BooleanSupplier running;

  Mover(CommanderConfig config, Routing routing, Supervisor supervisor, Placement placement,
      Object placementLock, BooleanSupplier running) {
    this.config = config;
    this.routing = routing;
    this.supervisor = supervisor;
    this.placement = placement;
    this.placementLock = placementLock;
    this.running = running;
  }

  /** Moves {@code user}, waiting for a new worker at most until {@code deadlineNanos}. */
  MoveOutcome move(String user, long deadlineNanos) {
    MoveOutcome outcome = attempt(user, deadlineNanos);
    if (!outcome.moved()) { // a done move's event was written by the fold of its user_frozen
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("user", user);
      fields.put("from", outcome.from());
      fields.put("to", null);
      fields.put("refused", outcome.refusal().code());
      fields.put("message", outcome.message());
      routing.note("move", fields);
      LOG.log(Level.INFO, "move refused: " + outcome.message());
    }
    return outcome;
  }

  private MoveOutcome attempt(String user, long deadlineNanos) {
    if (!running.getAsBoolean()) {
      return MoveOutcome.refused(user, null, Refusal.NOT_RUNNING, "the commander is not running;"
          + " '" + user + "' was not moved");
    }
    Location location = routing.locate(user);
    if (!(location instanceof OnWorker on)) {
      return MoveOutcome.refused(user, null, Refusal.NOT_RESIDENT, location instanceof Frozen
          ? "'" + user + "' is in the freezer already; his next request wakes him where there is"
              + " room, nothing was changed"
          : "the commander knows no user '" + user + "' living on a worker; nothing was changed");
    }
    String from = on.worker();
    Optional<WorkerHandle> source = supervisor.running(from);
    if (source.isEmpty()) {
      return MoveOutcome.refused(user, from, Refusal.NOT_RESIDENT, "the worker of '" + user
          + "', " + from + ", is not running; he was not moved");
    }
    String to;
    try {
      to = destination(from, deadlineNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      to = null;
    }
    if (to == null || to.startsWith("!")) {
      String why = to == null ? "the wait for a new worker was interrupted" : to.substring(1);
      return MoveOutcome.refused(user, from, Refusal.NO_OTHER_WORKER, "no other worker can take '"
          + user + "' (" + why + "); he stays on " + from + ", nothing was changed");
    }
    Optional<Hold> hold = routing.hold(user, HoldReason.MOVING, to);
    if (hold.isEmpty()) {
      return MoveOutcome.refused(user, from, Refusal.HELD, "'" + user + "' is being frozen or"
          + " moved already; he was not moved again");
    }
    MoveOutcome unlessFrozen;
    try {
      unlessFrozen = freeze(user, from, source.get(), hold.get());
    } finally {
      routing.release(hold.get()); // a no-op when a fold released it first: its ending stands
    }
    return verdict(hold.get(), unlessFrozen);
  }

  /**
   * The verdict of a move whose hold is released: done when the fold of his {@code user_frozen}
   * released it ({@link Hold.Ending.Froze}), else {@code unlessFrozen}. See the class's "The
   * verdict".
   */
  private static MoveOutcome verdict(Hold hold, MoveOutcome unlessFrozen) {
    if (hold.ending() instanceof Hold.Ending.Froze froze) {
      return MoveOutcome.moved(hold.user(), froze.worker(), froze.destination());
    }
    return unlessFrozen;
  }

  /**
   * Orders {@code source} to freeze {@code user}, held by {@code hold}: what the move is unless the
   * fold of his {@code user_frozen} released the hold (then it is done, whatever this says).
   */
  private MoveOutcome freeze(String user, String from, WorkerHandle source, Hold hold) {
    try {
      if (!(routing.locate(user) instanceof OnWorker still && still.worker().equals(from))) {
        return MoveOutcome.refused(user, from, Refusal.NOT_HERE, "'" + user + "' left " + from
            + " meanwhile; he was not moved");
      }
      // Fenced: the order freezes his stay at the generation the maps give, nothing newer.
      UserOrder order = still.generation() == 0 ? UserOrder.of(user)
          : UserOrder.of(user, still.generation());
      byte[] reply = source.wire().orderCall(Methods.FREEZE_USER, ProtocolCodec.write(order),
          config.orderTimeout())
          .get(config.orderTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
      source.heard();
      FreezeResult result = ProtocolCodec.read(reply, FreezeResult.class);
      return switch (result.outcome()) {
        case FreezeResult.FROZEN -> {
          // The ordering rule: his user_frozen was folded before this reply came, and that fold
          // ended the hold (the verdict then is "done"). Where the maps say he is now tells
          // nothing: a request that waited on the hold may have woken him on the destination.
          Hold.Ending ending = hold.ending();
          if (ending == null) {
            LOG.log(Level.ERROR, "worker " + from + " answered 'frozen' for '" + user + "' before"
                + " its user_frozen announcement: the ordering rule is broken");
          }
          yield MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "worker " + from
              + " said '" + user + "' was frozen but " + (ending == null ? "never announced it;"
                  + " the maps keep him there" : "his move's hold had ended otherwise (" + ending
                  + "); he was not moved"));
        }
        case FreezeResult.DROPPED -> MoveOutcome.refused(user, from, Refusal.NOT_RESIDENT, "'"
            + user + "' expired on " + from + " while his move began; he was dropped, not moved");
        case FreezeResult.NOT_HERE -> MoveOutcome.refused(user, from, Refusal.NOT_HERE, "worker "
            + from + " does not hold '" + user + "' (" + result.message() + "); he was not moved");
        default -> MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "worker " + from
            + " could not freeze '" + user + "' (" + result.message() + "); he stays alive there");
      };
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      String why = cause instanceof WireClosedException ? "his worker died during the freeze"
          : cause instanceof WireTimeoutException ? "his worker did not answer within "
              + config.orderTimeout() : String.valueOf(cause.getMessage());
      return MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "'" + user + "' was not"
          + " moved: " + why);
    } catch (TimeoutException e) {
      return MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "'" + user + "' was not moved:"
          + " his worker did not answer within " + config.orderTimeout());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "the move of '" + user
          + "' was interrupted");
    } catch (RuntimeException e) {
      return MoveOutcome.refused(user, from, Refusal.FREEZE_FAILED, "'" + user + "' was not"
          + " moved: " + e.getMessage());
    }
  }

  /** Another worker for a user leaving {@code from}; {@code "!" + why} when there is none. */
  private String destination(String from, long deadlineNanos) throws InterruptedException {
    while (true) {
      Verdict verdict;
      CompletableFuture<WorkerHandle> started = null;
      long seen = supervisor.generation();
      synchronized (placementLock) {
        verdict = placement.elsewhere(from, supervisor.views(), supervisor.starting());
        if (verdict instanceof Grow) { // started under the lock: the next decision counts it
          started = supervisor.startWorker();
        }
      }
      switch (verdict) {
        case Place place -> {
          return place.worker();
        }
        case Saturated saturated -> {
          return "!" + saturated.reason();
        }
        case Grow grow -> {
          try {
            return started.get(Math.max(1, deadlineNanos - System.nanoTime()),
                TimeUnit.NANOSECONDS).name();
          } catch (ExecutionException e) {
            return "!" + e.getCause().getMessage();
          } catch (TimeoutException e) {
            return "!a new worker is starting and did not present itself in time";
          }
        }
        case AwaitStart await -> {
          if (!supervisor.awaitChange(seen, deadlineNanos)) {
            return "!a new worker is starting and did not present itself in time";
          }
        }
      }
    }
  }
}
