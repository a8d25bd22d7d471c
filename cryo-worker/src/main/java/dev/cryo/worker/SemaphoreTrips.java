package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.lock.LockException;
import dev.cryo.wire.protocol.RefusalReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A worker's trips to the disk, each holding a user's semaphore: the semaphore is tried once at a
 * time on the disk executor, and a busy one is tried again on the worker's schedule, never by
 * holding a disk thread while waiting, until the wait limit; the work then runs holding it, and the
 * semaphore is given back whatever happens. One warning per trip names the holder found in the way.
 * A try is counted {@linkplain #atDisk at the disk} from before its take until after its release,
 * and the trips' listener runs after each try's count ends: whoever waits for the disk to be quiet
 * (a quit's end) asks again then. Thread-safe.
 */
final class SemaphoreTrips {

  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  /** Disk work done holding a user's semaphore in {@code into}, the root it was taken in. */
  @FunctionalInterface
  interface DiskWork<T> {
    T run(Freezer into) throws IOException;
  }

  private final String worker;
  private final Executor disk;
  private final Schedule schedule;
  private final Clock clock;
  private final Duration retryInterval;
  private final Duration waitLimit;
  private final Duration rowWait;
  private final Runnable afterTry;
  private final AtomicLong count = new AtomicLong();
  private final AtomicInteger atDisk = new AtomicInteger();

  /**
   * @param afterTry runs on the disk thread after each try left the disk (its semaphore, if taken,
   *     given back), whatever the try did; must not throw
   */
  SemaphoreTrips(String worker, Executor disk, Schedule schedule, Duration retryInterval,
      Duration waitLimit, Duration rowWait, Runnable afterTry) {
    this.worker = worker;
    this.disk = disk;
    this.schedule = schedule;
    this.clock = schedule.clock();
    this.retryInterval = retryInterval;
    this.waitLimit = waitLimit;
    this.rowWait = rowWait;
    this.afterTry = afterTry;
  }

  /** How many trips held a semaphore so far. */
  long count() {
    return count.get();
  }

  /**
   * How many tries are at the disk now: between the start of a take and the end of its release. A
   * user may have left the worker's map inside the work while his semaphore is still held; a quit
   * is not over until this is zero.
   */
  int atDisk() {
    return atDisk.get();
  }

  /**
   * Takes the semaphore of {@code user} in {@code root}, runs {@code work} holding it, gives it
   * back. The holder is named {@code "<worker> <purpose>"}.
   *
   * @param root the freezer to work in, asked again at every try: a departure retrying its
   *     semaphore when a quit begins goes to the quit's root
   * <p>Work that finds a row locked by a call's store action throws {@link LockOrder.RowBusy}
   * having undone what it did: the semaphore is given back and the disk thread freed, and the
   * trip tries again on the schedule, up to the row wait (the quit's grace) from its start.
   *
   * @return completes with what the work returned; or exceptionally with a {@link WorkerException}:
   *     {@link RefusalReason#SEMAPHORE_TIMEOUT} (nothing was done),
   *     {@link RefusalReason#ROW_BUSY} (nothing was done),
   *     {@link RefusalReason#FREEZER_FAILED}, or the work's own
   */
  <T> CompletableFuture<T> run(Supplier<Freezer> root, String user, String purpose,
      DiskWork<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Instant deadline = clock.instant().plus(waitLimit);
    Instant rowDeadline = clock.instant().plus(rowWait);
    String holder = worker + " " + purpose;
    Runnable attempt = new Runnable() {
      private boolean warned; // touched by one task at a time, handed over by the executors

      @Override
      public void run() {
        atDisk.incrementAndGet();
        try {
          tryOnce();
        } finally {
          atDisk.decrementAndGet();
          afterTry.run(); // after the count: a quit's end check must see this try gone
        }
      }

      private void tryOnce() {
        Freezer into = root.get();
        boolean taken;
        try {
          taken = into.tryTakeSemaphore(user, holder);
        } catch (LockException | RuntimeException e) {
          result.completeExceptionally(new WorkerException(RefusalReason.FREEZER_FAILED,
              user, "worker " + worker + " could not take the semaphore of '" + user + "' for its "
                  + purpose + " (" + e.getMessage() + "); nothing was changed", e));
          return;
        }
        if (!taken) {
          if (!warned) {
            warned = true;
            LOG.log(Level.WARNING, "the semaphore of '" + user + "' is held by "
                + holderOf(into, user) + "; worker " + worker + " retries its " + purpose
                + " every " + retryInterval + " for up to " + waitLimit);
          }
          if (!clock.instant().isBefore(deadline)) {
            result.completeExceptionally(new WorkerException(
                RefusalReason.SEMAPHORE_TIMEOUT, user, "the semaphore of '" + user
                    + "' stayed held by " + holderOf(into, user) + " past the wait limit of "
                    + waitLimit + "; worker " + worker + " gave up its " + purpose + " and changed"
                    + " nothing: retry later"));
            return;
          }
          schedule.schedule(retryInterval, () -> execute(this, result));
          return;
        }
        count.incrementAndGet();
        T value;
        try {
          value = work.run(into);
        } catch (LockOrder.RowBusy busy) {
          release(into, user, holder); // never held while waiting for a row
          if (!clock.instant().isBefore(rowDeadline)) {
            result.completeExceptionally(new WorkerException(RefusalReason.ROW_BUSY,
                user, busy.getMessage() + " of '" + user + "' stayed locked by a call's store"
                    + " action (a call stuck in its handler) for " + rowWait + "; worker " + worker
                    + " gave up its " + purpose + " and changed nothing: the call must return"
                    + " first"));
            return;
          }
          schedule.schedule(retryInterval, () -> execute(this, result));
          return;
        } catch (Throwable e) {
          release(into, user, holder);
          result.completeExceptionally(e instanceof WorkerException ? e
              : new WorkerException(RefusalReason.FREEZER_FAILED, user, "the " + purpose
                  + " of '" + user + "' on worker " + worker + " failed: " + e.getMessage()
                  + "; the semaphore was given back", e));
          return;
        }
        release(into, user, holder);
        result.complete(value);
      }
    };
    execute(attempt, result);
    return result;
  }

  private void execute(Runnable task, CompletableFuture<?> result) {
    try {
      disk.execute(task);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new WorkerException(RefusalReason.WORKER_FINISHED, null,
          "worker " + worker + " has stopped its disk work; nothing was changed", e));
    }
  }

  private void release(Freezer into, String user, String holder) {
    try {
      into.releaseSemaphore(user, holder);
    } catch (LockException | RuntimeException e) {
      LOG.log(Level.ERROR, "worker " + worker + " could not release the semaphore of '" + user
          + "' (" + holder + "); it stays until its holder is proven dead", e);
    }
  }

  private static String holderOf(Freezer into, String user) {
    try {
      return into.semaphoreHolder(user).map(record -> "'" + record.holder() + "'").orElse("nobody");
    } catch (LockException | RuntimeException e) {
      return "an unreadable holder";
    }
  }
}
