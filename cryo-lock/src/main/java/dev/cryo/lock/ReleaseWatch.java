package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;

/**
 * Waits for the removal of a lockfile: a file-change notification when the file system gives one
 * (inotify on Linux), polling with a growing interval when it does not. A waiter therefore wakes
 * within a fraction of a millisecond of a release, instead of on a fixed poll.
 *
 * <p>Only the removal of the lockfile itself (or a lost event) ends a wait. The directory sees other
 * removals all the time: every contender's failed publication removes its temporary, and were
 * those to wake the waiters, each waiter's next failed attempt would wake all the others again, and
 * the waiters would keep each other spinning for as long as the lock is held.
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
  private final Path fileName;
  private long pollMillis = FIRST_POLL_MILLIS;

  private ReleaseWatch(WatchService service, Path fileName) {
    this.service = service;
    this.fileName = fileName;
  }

  /**
   * Starts watching for the removal of {@code lockFile}; falls back to polling when its directory
   * cannot be watched.
   */
  static ReleaseWatch on(Path lockFile) {
    Path directory = lockFile.getParent();
    WatchService service = null;
    try {
      service = directory.getFileSystem().newWatchService();
      directory.register(service, StandardWatchEventKinds.ENTRY_DELETE);
    } catch (IOException | UnsupportedOperationException e) {
      closeQuietly(service);
      service = null;
    }
    return new ReleaseWatch(service, lockFile.getFileName());
  }

  /** Whether a file-change notification backs this watch (else it polls). */
  boolean isNotified() {
    return service != null;
  }

  /**
   * Waits until the lockfile is removed, or for at most {@code nanos}.
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
    long deadline =
        System.nanoTime() + Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(MAX_NAP_MILLIS));
    try {
      long remaining;
      while ((remaining = deadline - System.nanoTime()) > 0) {
        WatchKey key = service.poll(remaining, TimeUnit.NANOSECONDS);
        if (key == null) {
          return;
        }
        boolean released = false;
        for (WatchEvent<?> event : key.pollEvents()) {
          released |= event.kind() == StandardWatchEventKinds.OVERFLOW
              || fileName.equals(event.context());
        }
        if (!key.reset() || released) {
          return;
        }
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
