package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.lock.Publication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The run's generations: the fencing tokens of every placement of a user
 * ({@link dev.cryo.wire.protocol.Grant}). One counter for the whole run, strictly increasing,
 * never reused — across the commander's restarts too, as a store's revision never goes back.
 *
 * <p><b>Durable by leases.</b> With a home, the counter is leased in blocks of {@link #LEASE}: a
 * generation is handed out only below a ceiling already on disk (the home's file
 * {@value Commander#GENERATIONS}, replaced whole and forced, 0600, through the held
 * {@link RunHome}), so a commander that restarts after a crash starts above everything its
 * predecessor can have handed out; one disk write per block, on the request's path only for the
 * one that crosses a ceiling. A file that does not read is refused at the start, never guessed:
 * the generations after it could go back. Without a home (tests) the counter starts at 1 and lives
 * in memory.
 *
 * <p>Thread-safe: {@link #next()} is synchronized.
 */
final class Generations {

  /** How many generations one lease covers. */
  static final long LEASE = 1 << 16;
  /** The longest ceiling file read: a number and a newline. */
  private static final int MAX_FILE = 64;

  private final RunHome home;
  private final String name;
  private final long first;
  private long next;
  private long ceiling;

  private Generations(RunHome home, String name, long first) {
    this.home = home;
    this.name = name;
    this.first = first;
    this.next = first;
    this.ceiling = home == null ? Long.MAX_VALUE : first - 1;
  }

  /** A counter in memory, from 1. */
  static Generations inMemory() {
    return new Generations(null, null, 1);
  }

  /**
   * The counter of the run whose lease is the file {@code name} of {@code home}: it starts above
   * the ceiling the file holds (at 1 when there is none).
   *
   * @throws IOException when the file is there but does not read as a ceiling (nothing is
   *     written: the run must not start with generations that could go back), or as
   *     {@link RunHome#read}
   */
  static Generations open(RunHome home, String name) throws IOException {
    Objects.requireNonNull(home, "home");
    Optional<byte[]> bytes = home.read(name, MAX_FILE);
    long first = 1;
    if (bytes.isPresent()) {
      String text = new String(bytes.get(), StandardCharsets.US_ASCII).strip();
      try {
        first = Long.parseLong(text) + 1;
      } catch (NumberFormatException e) {
        throw new IOException("the generations file " + home.shown(name) + " does not hold a"
            + " number ('" + text + "'); the run did not start, so that no generation is handed"
            + " out twice: restore it, or write in it a number above every generation the run"
            + " gave (the largest in its parcels' headers)", e);
      }
      if (first < 1) {
        throw new IOException("the generations file " + home.shown(name) + " holds " + text
            + ", below 0; the run did not start: write in it a number above every generation the"
            + " run gave");
      }
    }
    return new Generations(home, name, first);
  }

  /**
   * The first generation this counter hands out: every generation of the run before is below it,
   * every one of this run at or above it.
   */
  long first() {
    return first;
  }

  /** The next generation, greater than every one handed out before. */
  synchronized long next() {
    if (next > ceiling) {
      lease(next + LEASE - 1);
    }
    return next++;
  }

  private void lease(long newCeiling) {
    try {
      Publication.Outcome outcome = home.replace(name,
          (newCeiling + "\n").getBytes(StandardCharsets.US_ASCII));
      if (!outcome.published() || outcome.notForced().isPresent()) {
        throw new IOException(outcome.notForced().map(e -> "not forced to disk: " + e.getMessage())
            .orElse("not published"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the generations lease could not be written to "
          + home.shown(name) + " (" + e.getMessage() + "); no generation past " + ceiling
          + " is handed out until it is: free space or fix the run's home", e);
    }
    ceiling = newCeiling;
  }
}
