package dev.cryo.bench.lock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;

/**
 * A model of the lock cryo replaces (seed 004), for the hand-off harness only: a lockfile created
 * with {@code O_CREAT|O_EXCL|O_WRONLY} (mode 0600) holding the decimal pid, a stale check before each
 * try (a pid that names no live process, or a file that is empty or not a number, is removed after a
 * second read finds the same content), and a fixed 100 ms sleep between tries. Release reads the
 * pid and removes the file when it is ours.
 *
 * <p>Deliberately faithful, gaps included: between the exclusive create and the write of the pid a
 * reader sees an empty file and may judge it stale. Not a lock to use; no in-process re-entry.
 */
public final class SeedPollingLock implements AutoCloseable {

  /** The seed's fixed pause between two tries. */
  public static final Duration POLL = Duration.ofMillis(100);

  private static final long PID = ProcessHandle.current().pid();

  private final Path lockFile;
  private boolean closed;

  private SeedPollingLock(Path lockFile) {
    this.lockFile = lockFile;
  }

  /**
   * Takes {@code <directory>/.lock}, trying every 100 ms until {@code wait} has passed.
   *
   * @throws IOException when the lock is still held at the deadline, or the file system refuses
   */
  public static SeedPollingLock acquire(Path directory, Duration wait)
      throws IOException, InterruptedException {
    Path target = directory.resolve(".lock");
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      reclaimIfStale(target);
      if (tryCreate(target)) {
        return new SeedPollingLock(target);
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IOException("busy: " + target + " is held by " + readPid(target));
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** Removes the lockfile when it still names this process. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (Objects.equals(readPid(lockFile), Long.toString(PID))) {
      Files.deleteIfExists(lockFile);
    }
  }

  private static boolean tryCreate(Path target) throws IOException {
    SeekableByteChannel channel;
    try {
      channel = Files.newByteChannel(target,
          java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      return false;
    }
    try (channel) {
      ByteBuffer pid = ByteBuffer.wrap((PID + "\n").getBytes(StandardCharsets.US_ASCII));
      while (pid.hasRemaining()) {
        channel.write(pid);
      }
    }
    return true;
  }

  private static void reclaimIfStale(Path target) throws IOException {
    String pid = readPid(target);
    if (pid == null) {
      return;
    }
    boolean stale;
    try {
      stale = !ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
    } catch (NumberFormatException e) {
      stale = true;
    }
    if (stale && pid.equals(readPid(target))) {
      Files.deleteIfExists(target);
    }
  }

  /** The stripped content of the lockfile, or {@code null} when there is none. */
  private static String readPid(Path target) throws IOException {
    try {
      return Files.readString(target, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
