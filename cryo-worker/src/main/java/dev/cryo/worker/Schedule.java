package dev.cryo.worker;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The worker's own time: the clock it stamps with and the schedule it runs its delayed work on
 * (semaphore retries, the transfer gate, the quit's grace, the idle valve). Injected, so that a test
 * moves time by hand and sees every delay honoured without sleeping.
 *
 * <p>Implementations are thread-safe; a scheduled task runs once, never on the calling thread of
 * {@link #schedule} itself, and must not block.
 */
public interface Schedule {

  /** The clock the worker stamps rows and reads deadlines with. */
  Clock clock();

  /**
   * Runs {@code task} once after {@code delay} (zero: as soon as possible, after the current work).
   *
   * @return a handle to cancel it before it runs
   */
  Cancellable schedule(Duration delay, Runnable task);

  /**
   * Stops running scheduled work; called by the worker that owns this schedule when it finishes. A
   * task scheduled after it is dropped: the worker finished, and nothing is left for it to do.
   */
  default void shutdown() {}

  /** A handle on a scheduled task. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task if it has not run yet; does nothing otherwise. */
    void cancel();
  }

  /** The system clock (UTC) and one daemon thread running the delayed work. */
  static Schedule system() {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "cryo-worker-schedule");
      thread.setDaemon(true);
      return thread;
    });
    executor.setRemoveOnCancelPolicy(true);
    return of(Clock.systemUTC(), executor);
  }

  /** {@code clock} and {@code executor}; the schedule's shutdown shuts the executor down. */
  static Schedule of(Clock clock, ScheduledExecutorService executor) {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(executor, "executor");
    return new Schedule() {
      @Override
      public Clock clock() {
        return clock;
      }

      @Override
      public Cancellable schedule(Duration delay, Runnable task) {
        ScheduledFuture<?> future;
        try {
          future = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          if (executor.isShutdown()) {
            return () -> { }; // the worker finished: nothing is left for the task to do
          }
          throw e;
        }
        return () -> future.cancel(false);
      }

      @Override
      public void shutdown() {
        executor.shutdownNow();
      }
    };
  }
}
