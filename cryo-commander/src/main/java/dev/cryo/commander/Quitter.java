package dev.cryo.commander;

import dev.cryo.wire.WireClosedException;
import dev.cryo.wire.WireTimeoutException;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.QuitOrder;
import dev.cryo.wire.protocol.QuitResult;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Quits one worker into the freezer: it is marked {@link WorkerState#QUITTING} (placement stops
 * choosing it, frozen users bound for it are bound anew), its users are held (their requests wait,
 * within their hold budget, and are not refused), the worker is told to {@code quit} with no gate
 * (nothing new reaches it) and the given grace for calls in flight, each user's {@code user_frozen}
 * fold releases his hold (his next request wakes him elsewhere; a request waiting for him has the
 * dispatcher order his freeze at once, after the quit's order, so he need not wait for the worker's
 * own order of departures), the report is recorded, and the worker's process is ended. A user
 * whose departure failed, or who was on a worker that died before it reported, is lost (named in
 * the outcome and the {@code worker_died} event).
 *
 * <p>Events: {@code quit_begun} (worker, users held, grace), then the folds, then
 * {@code quit_ended} (the counts, or why there were none), then {@code worker_died} with the
 * reason "it quit into the freezer".
 *
 * <p>Thread-safe: quits of different workers may run at once; a quit blocks its caller until the
 * worker's process ended, at most the grace plus {@link #REPORT_MARGIN} plus the kill's bounded
 * wait: a worker that reported is killed at once, not waited for ({@link Supervisor#retire}).
 */
final class Quitter {

  private static final System.Logger LOG = System.getLogger(Quitter.class.getName());
  /** How much longer than the grace a worker may take to freeze its users and report. */
  static final Duration REPORT_MARGIN = Duration.ofMinutes(2);
  /** The reason a quit worker's death carries. */
  static final String REASON = "it quit into the freezer";

  private final Routing routing;
  private final Supervisor supervisor;

  Quitter(Routing routing, Supervisor supervisor) {
    this.routing = routing;
    this.supervisor = supervisor;
  }

  /** Quits the worker named {@code name}; calls in flight are cut {@code grace} after the order. */
  QuitOutcome quit(String name, Duration grace) {
    if (supervisor.isClosing()) {
      return QuitOutcome.refused(name, QuitOutcome.Refusal.CLOSED, "the commander is closing;"
          + " worker " + name + " was not quit");
    }
    Optional<WorkerHandle> found = supervisor.running(name);
    if (found.isEmpty() || !found.get().quitting()) {
      return QuitOutcome.refused(name, QuitOutcome.Refusal.NOT_RUNNING, "no worker " + name
          + " is running (it is starting, quitting already, or dead); nothing was changed");
    }
    WorkerHandle handle = found.get();
    routing.unbindAllFrom(name);
    List<Hold> holds = new ArrayList<>();
    for (String user : routing.usersOn(name)) {
      routing.hold(user, HoldReason.QUITTING, null).ifPresent(holds::add); // a move's stands
    }
    routing.noteWorker("quit_begun", name, "held", holds.size(), "grace_ms", grace.toMillis());
    LOG.log(Level.INFO, "worker " + name + " quits into the freezer with " + holds.size()
        + " users held (grace " + grace + ")");
    QuitResult report = null;
    String failure = null;
    try {
      report = order(handle, grace, holds);
      routing.noteWorker("quit_ended", name, "frozen", report.frozen(), "dropped",
          report.dropped(), "failed", report.failed(), "cut", report.cut());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "the quit was interrupted";
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      failure = cause instanceof WireClosedException ? "the worker died during its quit"
          : cause instanceof WireTimeoutException || cause instanceof TimeoutException
              ? "the worker did not report within " + grace.plus(REPORT_MARGIN)
              : String.valueOf(cause.getMessage());
      routing.noteWorker("quit_ended", name, "failure", failure);
    }
    List<String> lost;
    try {
      lost = supervisor.retire(handle, failure == null ? REASON : REASON + " (" + failure + ")",
          failure == null);
    } finally {
      holds.forEach(routing::release); // the frozen were released by their folds already
    }
    String message = failure != null
        ? "worker " + name + " did not finish its quit (" + failure + "); it was ended, and the "
            + lost.size() + " users it still held are lost" + (lost.isEmpty() ? "" : ": " + lost)
        : "worker " + name + " quit into the freezer: " + report.frozen() + " frozen, "
            + report.dropped() + " expired, " + report.cut() + " cut past the grace, "
            + lost.size() + " lost" + (lost.isEmpty() ? "" : ": " + lost);
    LOG.log(lost.isEmpty() ? Level.INFO : Level.WARNING, message);
    return report == null
        ? new QuitOutcome(name, null, 0, 0, 0, 0, lost, message)
        : new QuitOutcome(name, null, report.frozen(), report.dropped(), report.failed(),
            report.cut(), lost, message);
  }

  /** Sends the quit, then lets the held users' waiting requests hurry their freeze; its report. */
  private static QuitResult order(WorkerHandle handle, Duration grace, List<Hold> holds)
      throws InterruptedException, ExecutionException, TimeoutException {
    Duration bound = grace.plus(REPORT_MARGIN);
    CompletableFuture<byte[]> call = handle.wire().orderCall(Methods.QUIT,
        ProtocolCodec.write(new QuitOrder(0L, grace.toMillis())), bound);
    holds.forEach(Hold::quitOrdered);
    byte[] reply = call.get(bound.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
    handle.heard();
    return ProtocolCodec.read(reply, QuitResult.class);
  }
}
