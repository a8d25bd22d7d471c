package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a change in a lock's directory: a file-change notification when the file system gives
 * one (inotify on Linux), polling with a growing interval when it does not. A waiter therefore wakes
 * within a fraction of a millisecond of a release, instead of on a fixed poll.
 *
 * <p>A watch made {@linkplain #onRemovalOf(Path) for one file} wakes only when that file is removed
 * (or the queue overflowed, or the directory can no longer be watched): the temporaries that every
 * contender creates and removes beside a lockfile must not wake the waiters, or each failed attempt
 * of one waiter would wake all the others, and itself, into another attempt.
 *
 * <p>Even with notifications, no single wait lasts longer than {@link #MAX_NAP_MILLIS}: a missed
 * event (a network file system, an overflowing queue) costs at most that much. Not thread-safe: one
 * waiter owns an instance.
 */
final class ReleaseWatch implements AutoCloseable {

  static final long MAX_NAP_MILLIS = 250;

  /**
   * The longest single wait of a notified watch: {@link #MAX_NAP_MILLIS}. A test seam: a test that
   * claims a waiter is woken by the notification lifts it far above its own bound, so that a waiter
   * which missed the notification (a dead watch) fails the test instead of waking on the nap.
   */
  static volatile long maxNapNanos = TimeUnit.MILLISECONDS.toNanos(MAX_NAP_MILLIS);
  private static final long FIRST_POLL_MILLIS = 1;
  private static final long MAX_POLL_MILLIS = 50;

  /**
   * Closes watch services in the background: closing an inotify instance waits for the kernel to
   * retire its watches (an RCU grace period: up to about 10 ms on an idle machine), which must not
   * delay the acquisition that has just succeeded. A few threads, so that a burst of contended
   * acquisitions does not queue behind one another's closes; idle threads go away.
   */
  private static final ThreadPoolExecutor CLOSER = new ThreadPoolExecutor(4, 4, 10,
      TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
        Thread thread = new Thread(task, "cryo-lock-watch-closer");
        thread.setDaemon(true);
        return thread;
      });

  static {
    CLOSER.allowCoreThreadTimeOut(true);
  }

  private final WatchService service;
  private final Path fileName;
  private long pollMillis = FIRST_POLL_MILLIS;

  private ReleaseWatch(WatchService service, Path fileName) {
    this.service = service;
    this.fileName = fileName;
  }

  /**
   * Starts watching {@code directory} for the removal of any entry; falls back to polling when it
   * cannot be watched.
   */
  static ReleaseWatch on(Path directory) {
    return on(directory, null);
  }

  /**
   * Starts watching the removal of {@code file} from its directory; falls back to polling when the
   * directory cannot be watched.
   */
  static ReleaseWatch onRemovalOf(Path file) {
    return on(file.getParent(), file.getFileName().toString());
  }

  /**
   * Starts watching {@code directory} for the removal of the entry {@code fileName}, or of any
   * entry when {@code fileName} is {@code null}; falls back to polling when it cannot be watched.
   */
  static ReleaseWatch on(Path directory, String fileName) {
    WatchService service = null;
    try {
      service = directory.getFileSystem().newWatchService();
      directory.register(service, StandardWatchEventKinds.ENTRY_DELETE);
    } catch (IOException | UnsupportedOperationException e) {
      closeQuietly(service);
      service = null;
    }
    return new ReleaseWatch(service, fileName == null ? null : Path.of(fileName));
  }

  /** Whether a file-change notification backs this watch (else it polls). */
  boolean isNotified() {
    return service != null;
  }

  /**
   * Waits until the watched file (or, without one, anything in the directory) is removed, or for at
   * most {@code nanos}.
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
    long deadline = System.nanoTime() + Math.min(nanos, maxNapNanos);
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        WatchKey key = service.poll(left, TimeUnit.NANOSECONDS);
        if (key == null) {
          return;
        }
        boolean removed = false;
        for (WatchEvent<?> event : key.pollEvents()) {
          removed |= event.kind() == StandardWatchEventKinds.OVERFLOW || fileName == null
              || fileName.equals(event.context());
        }
        if (!key.reset() || removed) {
          return;
        }
      }
    } catch (ClosedWatchServiceException e) {
      Thread.sleep(1);
    }
  }

  /**
   * Stops watching. The watch service is released in the background (see {@link #CLOSER}); this
   * call does not wait for it.
   */
  @Override
  public void close() {
    if (service != null) {
      WatchService closing = service;
      CLOSER.execute(() -> closeQuietly(closing));
    }
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
