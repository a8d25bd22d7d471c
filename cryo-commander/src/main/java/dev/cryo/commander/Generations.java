package dev.cryo.commander;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * The run's generations: the fencing tokens of every placement of a user
 * ({@link dev.cryo.wire.protocol.Grant}). One counter for the whole run, strictly increasing,
 * never reused — across the commander's restarts too, as a store's revision never goes back.
 *
 * <p><b>Durable by leases.</b> With a file, the counter is leased in blocks of {@link #LEASE}: a
 * generation is handed out only below a ceiling already on disk (written to a temporary file,
 * forced, renamed over the file, the folder forced), so a commander that restarts after a crash
 * starts above everything its predecessor can have handed out; one disk write per block, never on
 * a request's path but the one that crosses a ceiling. A file that does not read is refused at the
 * start, never guessed: the generations after it could go back. Without a file (tests, a worker
 * alone) the counter starts at 1 and lives in memory.
 *
 * <p>Thread-safe: {@link #next()} is synchronized.
 */
final class Generations {

  /** How many generations one lease covers. */
  static final long LEASE = 1 << 16;

  private final Path file;
  private long next;
  private long ceiling;

  private Generations(Path file, long first) {
    this.file = file;
    this.next = first;
    this.ceiling = file == null ? Long.MAX_VALUE : first - 1;
  }

  /** A counter in memory, from 1. */
  static Generations inMemory() {
    return new Generations(null, 1);
  }

  /**
   * The counter of the run whose lease file is {@code file}: it starts above the ceiling the file
   * holds (1 when there is none).
   *
   * @throws IOException when the file is there but does not read as a ceiling (nothing is
   *     written: the run must not start with generations that could go back)
   */
  static Generations open(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    long first = 1;
    if (Files.exists(file)) {
      String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
      try {
        first = Long.parseLong(text) + 1;
      } catch (NumberFormatException e) {
        throw new IOException("the generations file " + file + " does not hold a number ('" + text
            + "'); the run did not start, so that no generation is handed out twice: restore it,"
            + " or write in it a number above every generation the run gave (the largest in its"
            + " parcels' headers)", e);
      }
      if (first < 1) {
        throw new IOException("the generations file " + file + " holds " + text + ", below 0; the"
            + " run did not start: write in it a number above every generation the run gave");
      }
    }
    return new Generations(file, first);
  }

  /** The next generation, greater than every one handed out before. */
  synchronized long next() {
    if (next > ceiling) {
      lease(next + LEASE - 1);
    }
    return next++;
  }

  private void lease(long newCeiling) {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap((newCeiling + "\n").getBytes(StandardCharsets.US_ASCII)));
        channel.force(true);
      }
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
      try (FileChannel folder = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        folder.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the generations lease could not be written to " + file
          + " (" + e.getMessage() + "); no generation past " + ceiling + " is handed out until it"
          + " is: free space or fix the run's home", e);
    }
    ceiling = newCeiling;
  }
}
