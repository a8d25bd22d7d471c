package dev.cryo.freezer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * The processes that may still write into a run's freezer, made visible through one file: every
 * worker holds a shared lock on it for its whole life, and a commander's start takes it exclusively
 * before it adopts what the freezer holds. A worker whose commander was lost goes on writing its
 * users into the freezer for a while ({@code WorkerMain}); the next start must neither sweep a
 * folder it is writing nor hand a user it is freezing to another worker. The kernel releases the
 * lock of a process that ended, however it ended: the lock's release is proof of the holder's
 * death (or of its end), never a guess from a clock.
 *
 * <p>The lock is an advisory record lock ({@link FileChannel#lock}): it binds only the processes
 * that ask for it, which are cryo's own. The file itself carries nothing; the home creates it
 * private and judges it as every other file of its layout. Thread-safe (stateless).
 */
public final class FreezerWriters {

  /** How often a start looks again while writers of the run before still hold the file. */
  private static final Duration POLL = Duration.ofMillis(20);

  private FreezerWriters() {}

  /**
   * Holds the file at {@code path} shared, as one of the run's writers, until the returned channel
   * is closed or the process ends. Waits while a start holds it exclusively (a moment, at start).
   *
   * @throws IOException when the file cannot be opened (it is never created here, nor followed
   *     when a link)
   */
  public static FileChannel hold(Path path) throws IOException {
    FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    try {
      channel.lock(0, Long.MAX_VALUE, true);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Waits until no writer holds the file open on {@code channel} (read-write, owned by the caller),
   * at most {@code bound}: takes it exclusively, then releases it at once. The caller starts its
   * own writers only after this returned true.
   *
   * @return whether no writer holds it any more; false when some still did after {@code bound}
   * @throws InterruptedException when interrupted while waiting (nothing is held then)
   */
  public static boolean awaitNone(FileChannel channel, Duration bound)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      FileLock lock = channel.tryLock(0, Long.MAX_VALUE, false);
      if (lock != null) {
        lock.release();
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(POLL); // a poll of the kernel's lock table, not a synchronisation of ours
    }
  }
}
