package dev.cryo.worker;

import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The heap valve: when collections end with the heap still past {@link #LINE} of its ceiling
 * ({@link MemoryPressure}), the worker freezes its least recently served users, in batches, until
 * collections end under it.
 *
 * <p><b>The batch rule.</b> A batch is a tenth of the active users ({@link #BATCH_DIVISOR}), at
 * least one, taken by the latest of their real clocks ({@code last_user_ts}, {@code last_rpc_ts}),
 * oldest first (a user with neither first). One batch at a time: the next is taken only once every
 * freeze of the batch has ended (frozen, refused or failed) and another collection ended past the
 * line since the batch began (the pressure's {@link MemoryPressure#overCount} grew). A collection
 * that ends under the line counts nothing, so the valve stops there. Nothing is taken while the
 * worker quits or once it finished. Each freeze is an ordinary departure with the cause
 * {@code heap}: a user in the middle of a call leaves when it closes; a refused write keeps him.
 *
 * <p>Thread-safety: {@link #pressed} may be called from any thread, the JVM's notification thread
 * included, and returns at once; a batch is chosen and ordered on a virtual thread of its own, one
 * at a time (the {@code running} flag), and never blocks on its freezes.
 */
final class HeapValve {

  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  /** The share of the heap ceiling past which a collection's end counts as pressure. */
  static final double LINE = 0.80;
  /** A batch is the active users divided by this, at least one. */
  static final int BATCH_DIVISOR = 10;
  /** The cause of the valve's departures. */
  static final String CAUSE = "heap";

  private final Worker worker;
  private final RegisterRegistry registry;
  private final Departures departures;
  private final MemoryPressure pressure;
  private final AtomicBoolean running = new AtomicBoolean();
  /** The pressure's count the last batch answered; written only while {@code running} is held. */
  private volatile long handled;

  HeapValve(Worker worker, RegisterRegistry registry, Departures departures,
      MemoryPressure pressure) {
    this.worker = worker;
    this.registry = registry;
    this.departures = departures;
    this.pressure = pressure;
    this.handled = pressure.overCount(); // what came before the worker had users is not ours
  }

  /** Starts listening to the pressure. */
  void start() {
    pressure.listen(this::pressed);
  }

  /**
   * A collection ended past the line (or a batch ended): takes the next batch when the rule allows
   * it. Returns at once.
   */
  void pressed() {
    while (running.compareAndSet(false, true)) {
      long count = pressure.overCount();
      if (count > handled && !departures.quitting() && !departures.finished()) {
        handled = count;
        Thread.ofVirtual().name("cryo-heap-valve").start(this::batch);
        return;
      }
      running.set(false);
      if (pressure.overCount() <= handled || departures.quitting() || departures.finished()) {
        return; // else a collection came between the read and the release: look again
      }
    }
  }

  private void batch() {
    List<CompletableFuture<FreezeOutcome>> freezes = new ArrayList<>();
    try {
      List<String> chosen = leastRecentlyServed();
      if (!chosen.isEmpty()) {
        LOG.log(Level.INFO, "worker " + worker.name() + ": the heap stayed past "
            + Math.round(LINE * 100) + " % of its ceiling after a collection; freezing the "
            + chosen.size() + " least recently served users");
      }
      for (String user : chosen) {
        freezes.add(worker.depart(user, false, CAUSE, false));
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a batch of the heap valve failed; the next collection past the"
          + " line tries again", e);
    }
    CompletableFuture.allOf(freezes.toArray(CompletableFuture[]::new))
        .whenComplete((ignored, failure) -> {
          running.set(false);
          pressed(); // another collection past the line meanwhile: the next batch
        });
  }

  /** The batch: a tenth of the active users, at least one, least recently served first. */
  List<String> leastRecentlyServed() {
    record Served(String user, Instant last) {}
    List<Served> active = new ArrayList<>();
    for (String user : registry.userItems().keys()) {
      UserRow row = registry.userItems().get(user).orElse(null);
      if (row != null && UserState.of(row.get(UserState.FIELD)) == UserState.ACTIVE) {
        active.add(new Served(user, Departures.latest(row.get(Parcels.LAST_USER_TS),
            row.get(Parcels.LAST_RPC_TS))));
      }
    }
    if (active.isEmpty()) {
      return List.of();
    }
    active.sort(Comparator.comparing(Served::last, Comparator.nullsFirst(Comparator.naturalOrder()))
        .thenComparing(Served::user));
    int size = Math.max(1, active.size() / BATCH_DIVISOR);
    return active.subList(0, size).stream().map(Served::user).toList();
  }
}
