package dev.cryo.commander;

import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.WireClosedException;
import dev.cryo.wire.protocol.FreezeResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.UserOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The first pass of a drain: every awake user is ordered to freeze, one order per user, while his
 * worker still runs and can go on serving him. A worker's quit cannot be taken back (its process
 * ends after it), so a user whose departure the disk refused during a quit was lost with his
 * worker; ordered one by one, a user the worker could not write stays alive where he was, and
 * the drain can decline to commit and hand the run back to serving ({@link Drain}).
 *
 * <p>A worker's users are ordered in batches of {@value #BATCH} at once; once any worker refused
 * one, no further batch is sent (the drain is refused: the fewer users frozen meanwhile, the fewer
 * must wake from the freezer). An order not answered
 * within the pass's deadline (a call of his stuck past the drain's grace) is no verdict: that user
 * is left to the worker's quit, which cuts his call after the grace as before. A worker that dies
 * meanwhile is no verdict either: its death names its users.
 *
 * <p>Runs on its caller's thread, one virtual thread per worker; not thread-safe.
 */
final class DrainFreezes {

  /** The most freeze orders outstanding on one worker at once. */
  static final int BATCH = 32;

  private final Routing routing;
  private final Supervisor supervisor;
  private final Duration orderTimeout;

  DrainFreezes(Routing routing, Supervisor supervisor, Duration orderTimeout) {
    this.routing = routing;
    this.supervisor = supervisor;
    this.orderTimeout = orderTimeout;
  }

  /**
   * Orders the freeze of every user awake on the workers {@code names}.
   *
   * @param grace how long the pass may wait for one worker's orders in all
   * @return the users whose worker answered that it could not freeze them, each with the worker's
   *     reason: they are alive where they were; sorted by user
   */
  Map<String, String> run(List<String> names, Duration grace) throws InterruptedException {
    Map<String, String> refused = new TreeMap<>();
    AtomicBoolean seen = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (String name : names) {
      threads.add(Thread.ofVirtual().name("cryo-drain-freeze-" + name).start(() -> {
        Map<String, String> mine = freezeAll(name, grace, seen);
        synchronized (refused) {
          refused.putAll(mine);
        }
      }));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    synchronized (refused) {
      return new TreeMap<>(refused);
    }
  }

  private Map<String, String> freezeAll(String name, Duration grace, AtomicBoolean seen) {
    Map<String, String> refused = new LinkedHashMap<>();
    WorkerHandle handle = supervisor.running(name).orElse(null);
    if (handle == null) {
      return refused;
    }
    long deadline = System.nanoTime() + grace.toNanos();
    List<String> users = routing.usersOn(name);
    for (int from = 0; from < users.size() && !seen.get(); from += BATCH) {
      Map<String, CompletableFuture<byte[]>> orders = new LinkedHashMap<>();
      for (String user : users.subList(from, Math.min(users.size(), from + BATCH))) {
        if (routing.locate(user) instanceof OnWorker on && on.worker().equals(name)) {
          UserOrder order = on.generation() == 0 ? UserOrder.of(user)
              : UserOrder.of(user, on.generation());
          try {
            orders.put(user, handle.wire().orderCall(Methods.FREEZE_USER,
                ProtocolCodec.write(order), orderTimeout));
          } catch (RuntimeException e) {
            break; // the wire refused the order (closed): the quit or the death decides
          }
        }
      }
      for (Map.Entry<String, CompletableFuture<byte[]>> order : orders.entrySet()) {
        long left = Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - System.nanoTime());
        try {
          FreezeResult result = ProtocolCodec.read(order.getValue().get(left,
              TimeUnit.NANOSECONDS), FreezeResult.class);
          handle.heard();
          if (FreezeResult.FAILED.equals(result.outcome())) {
            refused.put(order.getKey(), "worker " + name + " could not freeze him ("
                + result.message() + ")");
            seen.set(true); // the drain is refused: no more batches, fewer users to wake
          }
        } catch (TimeoutException e) {
          // no verdict: the quit cuts his call after the grace
        } catch (ExecutionException e) {
          if (e.getCause() instanceof WireClosedException) {
            return refused; // the worker died: its death names its users
          }
          // a timeout of the order or a refusal of the wire: no verdict, the quit decides
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return refused;
        } catch (RuntimeException e) {
          // an unreadable reply: no verdict, the quit decides
        }
      }
    }
    return refused;
  }
}
