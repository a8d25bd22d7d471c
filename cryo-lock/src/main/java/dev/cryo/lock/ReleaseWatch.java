package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a change in a lock's directory: a file-change notification when the file system gives
 * one (inotify on Linux), polling with a growing interval when it does not. A waiter therefore wakes
 * within a fraction of a millisecond of a release, instead of on a fixed poll.
 *
 * <p>Even with notifications, no single wait lasts longer than {@link #MAX_NAP_MILLIS}: a missed
 * event (a network file system, an overflowing queue) costs at most that much. Not thread-safe: one
 * waiter owns an instance.
 */
final class ReleaseWatch implements AutoCloseable {

  static final long MAX_NAP_MILLIS = 250;
  private static final long FIRST_POLL_MILLIS = 1;
  private static final long MAX_POLL_MILLIS = 50;

  private final WatchService service;
  private long pollMillis = FIRST_POLL_MILLIS;

  private ReleaseWatch(WatchService service) {
    this.service = service;
  }

  /** Starts watching {@code directory}; falls back to polling when it cannot be watched. */
  static ReleaseWatch on(Path directory) {
    WatchService service = null;
    try {
      service = directory.getFileSystem().newWatchService();
      directory.register(service, StandardWatchEventKinds.ENTRY_DELETE);
    } catch (IOException | UnsupportedOperationException e) {
      closeQuietly(service);
      service = null;
    }
    return new ReleaseWatch(service);
  }

  /** Whether a file-change notification backs this watch (else it polls). */
  boolean isNotified() {
    return service != null;
  }

  /**
   * Waits until something in the directory is removed, or for at most {@code nanos}.
   *
   * @throws InterruptedException when the waiting thread is interrupted
   */
  void await(long nanos) throws InterruptedException {
    if (nanos <= 0) {
      return;
    }
    if (service == null) {
      long millis = Math.min(pollMillis, TimeUnit.NANOSECONDS.toMillis(nanos) + 1);
      Thread.sleep(millis);
      pollMillis = Math.min(pollMillis * 2, MAX_POLL_MILLIS);
      return;
    }
    long wait = Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(MAX_NAP_MILLIS));
    try {
      WatchKey key = service.poll(wait, TimeUnit.NANOSECONDS);
      if (key != null) {
        key.pollEvents();
        key.reset();
      }
    } catch (ClosedWatchServiceException e) {
      Thread.sleep(1);
    }
  }

  @Override
  public void close() {
    closeQuietly(service);
  }

  private static void closeQuietly(WatchService service) {
    if (service != null) {
      try {
        service.close();
      } catch (IOException e) {
        // nothing to keep
      }
    }
  }
}
