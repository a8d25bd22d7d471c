package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The claim loop shared by {@link ProcessLock} and {@link FolderSemaphore}: publish a fresh record;
 * when one is already there, judge its holder, reclaim it on proof of death, otherwise wait for a
 * release until the deadline. Stateless; each call works on its own.
 */
final class Claim {

  private static final LazyLog LOG = new LazyLog(Claim.class);

  private Claim() {}

  /**
   * Claims {@code file} for a new record naming {@code holder}.
   *
   * @param deadline a {@link System#nanoTime()} instant; one already past tries once (still
   *     reclaiming a provably dead holder)
   * @throws LockValidationException with {@link LockException.Reason#DIRECTORY_DISAPPEARED} when the
   *     directory does not exist (the caller decides what that means)
   */
  static LockRecord run(LockFile file, String holder, long deadline) throws LockException {
    return claim(file, holder, deadline, false, null).record();
  }

  /**
   * Claims {@code file} as {@link #run} does, and keeps the published file open
   * ({@link LockFile#publishKept}) for the claimer's checks and release; a temporary that loses
   * the race to the name is kept in {@code spare} and written again by the next claim.
   */
  static Claimed runKept(LockFile file, String holder, long deadline, Publication.Spare spare)
      throws LockException {
    return claim(file, holder, deadline, true, spare);
  }

  /**
   * What a claim published.
   *
   * @param record the record
   * @param bytes {@code record.toBytes()}, as written
   * @param kept the published file, still open, for {@link #runKept}; {@code null} for {@link #run}
   */
  record Claimed(LockRecord record, byte[] bytes, Publication.Kept kept) {}

  /**
   * The loop. Only its waits are interruptible (an interrupted wait is a busy refusal); its file
   * work is not ({@link Uninterruptible}), so an interrupted thread still takes a free lock, and
   * keeps its interrupt flag.
   *
   * <p>Each turn looks before it writes: a record is made and published only when nothing is at
   * the lockfile's name ({@link LockFile#isVacant}, which opens nothing). A lock found taken is
   * read and its holder judged once from what was read, and a refusal names that judgement: a
   * refused try writes nothing, links nothing and reads the process table once. The look is only
   * a shortcut, never a judgement: a name that fills between the look and the link makes the link
   * fail as before, and the turn reads and judges what won.
   */
  private static Claimed claim(LockFile file, String holder, long deadline, boolean keep,
      Publication.Spare spare) throws LockException {
    ProcessTable table = ProcessTable.system();
    LockRecord mine = null;
    byte[] mineBytes = null;
    Path directory = file.path().getParent();
    ReleaseWatch watch = null;
    boolean cleaned = false;
    try {
      while (true) {
        if (file.isVacant()) {
          if (mine == null) {
            mine = LockRecord.fresh(table.current(), holder);
            mineBytes = mine.toBytes();
          }
          Claimed claimed = publish(file, mine, mineBytes, keep, spare);
          if (claimed != null) {
            return claimed;
          }
        }
        LockReading found = file.read();
        Judgement judgement = judge(file, found, table);
        Wait wait = judgement.next();
        if (wait == Wait.RETRY_NOW) {
          if (!cleaned) {
            cleaned = cleanSideFiles(directory, file, table);
          }
          continue;
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          throw busy(file, found, judgement.holder());
        }
        if (!cleaned) {
          cleaned = cleanSideFiles(directory, file, table);
        }
        if (watch == null) {
          // Look again right after the watch starts, so that a release in between is not missed.
          watch = ReleaseWatch.onRemovalOf(file.path());
          continue;
        }
        long nap = remaining;
        if (found instanceof LockReading.Malformed malformed) {
          // Bounded by the skew and the grace (ProcessLock.malformedReclaimableAt): no overflow.
          Instant now = Instant.now();
          Duration left = Duration.between(now,
              ProcessLock.malformedReclaimableAt(malformed.modified(), now));
          nap = Math.min(nap, Math.max(0, left.toNanos()) + 1_000_000);
        } else if (wait == Wait.SHORT) {
          nap = Math.min(nap, TimeUnit.MILLISECONDS.toNanos(2));
        }
        try {
          watch.await(nap);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LockBusyException(file.path(), recordOf(found), "the wait was interrupted");
        }
      }
    } finally {
      if (watch != null) {
        watch.close();
      }
    }
  }

  /** Whether {@code bytes} are a record with the same token as {@code ours}. */
  static boolean isOurs(byte[] bytes, LockRecord ours) {
    return ours != null && isOurs(bytes, ours, ours.toBytes());
  }

  /** {@link #isOurs(byte[], LockRecord)}, given {@code ours.toBytes()} as {@code oursBytes}. */
  static boolean isOurs(byte[] bytes, LockRecord ours, byte[] oursBytes) {
    if (ours != null && Arrays.equals(bytes, oursBytes)) {
      return true; // our own record, unchanged: it parses back to our token, no need to parse it
    }
    try {
      return ours != null && Objects.equals(LockRecord.parse(bytes).token(), ours.token());
    } catch (MalformedRecordException e) {
      return false;
    }
  }

  /** A reading, in words, for messages. */
  static String describe(LockReading reading) {
    return switch (reading) {
      case LockReading.Absent absent -> "absent";
      case LockReading.Present present -> "held by " + present.record().describe();
      case LockReading.Malformed malformed -> "a record that does not parse ("
          + malformed.problem() + ")";
      case LockReading.NotRegular notRegular -> notRegular.kind() + ", not a lockfile";
      case LockReading.Unreadable unreadable -> "unreadable (" + unreadable.problem() + ")";
    };
  }

  private enum Wait { RETRY_NOW, SHORT, FOR_RELEASE }

  /** What a turn makes of a reading: how to go on, and the holder's verdict when one was made. */
  private record Judgement(Wait next, HolderVerdict holder) {
    static final Judgement RETRY_NOW = new Judgement(Wait.RETRY_NOW, null);
    static final Judgement SHORT = new Judgement(Wait.SHORT, null);
    static final Judgement FOR_RELEASE = new Judgement(Wait.FOR_RELEASE, null);
  }

  /**
   * Judges a reading. Chains of {@code instanceof} rather than a {@code switch} over the sealed
   * shapes, here and in {@link #busy}: a pattern {@code switch} is linked at its first run by a
   * bootstrap that generates a class (the class-file library, about forty classes), which every
   * short-lived contender paid for.
   */
  private static Judgement judge(LockFile file, LockReading found, ProcessTable table)
      throws LockException {
    if (found instanceof LockReading.Present present) {
      HolderVerdict verdict = HolderVerdict.judge(present.record(), table);
      if (verdict.liveness() != Liveness.DEAD) {
        return new Judgement(Wait.FOR_RELEASE, verdict);
      }
      return reclaim(file, present::sameBytes, "its holder is dead: " + verdict.reason());
    }
    if (found instanceof LockReading.Absent) {
      return Judgement.RETRY_NOW;
    }
    if (found instanceof LockReading.Unreadable) {
      return Judgement.FOR_RELEASE;
    }
    if (found instanceof LockReading.Malformed malformed) {
      if (!ProcessLock.graceOver(malformed.modified())) {
        return Judgement.FOR_RELEASE;
      }
      return reclaim(file, malformed::sameBytes,
          "its record does not parse (" + malformed.problem() + ") and has not changed for "
              + ProcessLock.MALFORMED_GRACE.toSeconds() + " s");
    }
    LockReading.NotRegular notRegular = (LockReading.NotRegular) found;
    throw new LockValidationException(LockException.Reason.NOT_A_REGULAR_FILE, file.path(),
        file.path() + " is " + notRegular.kind() + ", not a lockfile; it was neither followed"
            + " nor changed: remove it if nobody should be there, then retry");
  }

  private static Judgement reclaim(LockFile file, Predicate<byte[]> same, String why)
      throws LockException {
    LockFile.Removal outcome;
    try {
      outcome = file.removeIf(same, Duration.ZERO);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, file.path(),
          "could not reclaim " + file.path() + " (" + why + "): " + LockFile.describe(e)
              + "; it was left in place: check the directory's permissions", e);
    }
    if (outcome == LockFile.Removal.REMOVED) {
      LOG.get().log(Level.INFO, "reclaimed {0}: {1}", file.path(), why);
    }
    return outcome == LockFile.Removal.CONTENDED ? Judgement.SHORT : Judgement.RETRY_NOW;
  }

  /** Publishes {@code mine}; null when a lockfile was there first. */
  private static Claimed publish(LockFile file, LockRecord mine, byte[] mineBytes, boolean keep,
      Publication.Spare spare) throws LockException {
    try {
      if (keep) {
        Publication.Kept kept = file.publishKept(mineBytes, spare);
        return kept == null ? null : new Claimed(mine, mineBytes, kept);
      }
      return file.tryPublish(mine) ? new Claimed(mine, mineBytes, null) : null;
    } catch (NoSuchFileException e) {
      // The directory was missing when we wrote or linked in it, even if somebody (a semaphore
      // taker) has made it again since: judging by a second look would race with them.
      Path directory = file.path().getParent();
      throw new LockValidationException(LockException.Reason.DIRECTORY_DISAPPEARED,
          file.path(), "the directory " + directory + " disappeared while its lock was being"
              + " acquired; nothing was left behind: recreate it and retry", e);
    } catch (IOException e) {
      // Thrown only when nothing was published (a failure after the link is no failure to take).
      String left = e.getSuppressed().length == 0 ? "nothing was left behind"
          : "its temporary could not be removed either (it goes once this process is gone)";
      throw new LockValidationException(LockException.Reason.IO_FAILURE, file.path(),
          "could not publish a record at " + file.path() + ": " + LockFile.describe(e)
              + "; the lock was not taken and " + left + ": check the directory's permissions"
              + " and free space", e);
    }
  }

  private static boolean cleanSideFiles(Path directory, LockFile file, ProcessTable table) {
    try {
      Publication.removeAbandoned(directory, file.path().getFileName().toString(), table);
    } catch (IOException e) {
      LOG.get().log(Level.DEBUG, "could not clean abandoned temporaries in {0}: {1}", directory,
          e);
    }
    return true;
  }

  /**
   * The refusal, naming the holder's verdict this turn made ({@code verdict}, for a record); no
   * pattern {@code switch} (see {@link #judge}).
   */
  private static LockException busy(LockFile file, LockReading found, HolderVerdict verdict) {
    String detail;
    if (found instanceof LockReading.Present) {
      detail = verdict == null ? "its holder is alive" : verdict.reason();
    } else if (found instanceof LockReading.Unreadable unreadable) {
      detail = "its record cannot be read: " + unreadable.problem();
    } else if (found instanceof LockReading.Malformed malformed) {
      detail = "its record does not parse (" + malformed.problem() + "); it will be reclaimed at "
          + ProcessLock.malformedReclaimableAt(malformed.modified(), Instant.now())
          + " unless it changes";
    } else {
      detail = "another process took it meanwhile";
    }
    return new LockBusyException(file.path(), recordOf(found), detail);
  }

  private static LockRecord recordOf(LockReading found) {
    return found instanceof LockReading.Present present ? present.record() : null;
  }
}
