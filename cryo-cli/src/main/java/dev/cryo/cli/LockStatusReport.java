package dev.cryo.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.cryo.lock.HolderVerdict;
import dev.cryo.lock.Liveness;
import dev.cryo.lock.LockReading;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.ProcessTable;
import java.nio.file.Path;
import java.time.Instant;

/**
 * What {@code cryo lock status} reports about one lockfile, as text and as JSON. The JSON field
 * names are stable; every field is always present, {@code null} when it does not apply.
 *
 * @param lockFile the lockfile's absolute path
 * @param state {@code free}, {@code held}, {@code malformed}, {@code not_regular} or
 *     {@code unreadable}
 * @param liveness for {@code held}: {@code alive}, {@code dead} or {@code unknown}; else null
 * @param reclaimable whether the next acquirer (or {@code cryo lock break} without {@code --force})
 *     removes it: a dead holder, or a malformed record unchanged for the grace period
 * @param reason why, in one line: the verdict on the holder, or what is wrong with the file; null
 *     when free
 * @param holder the record, for {@code held}; else null
 */
@JsonPropertyOrder({"lockFile", "state", "liveness", "reclaimable", "reason", "holder"})
public record LockStatusReport(
    String lockFile,
    String state,
    String liveness,
    boolean reclaimable,
    String reason,
    Holder holder) {

  /** The lockfile is absent. */
  public static final String FREE = "free";
  /** The lockfile holds a record. */
  public static final String HELD = "held";
  /** The lockfile is a regular file that does not parse as a record. */
  public static final String MALFORMED = "malformed";
  /** Something that is not a regular file is at the lockfile's path. */
  public static final String NOT_REGULAR = "not_regular";
  /** The lockfile cannot be read. */
  public static final String UNREADABLE = "unreadable";

  /** {@code cryo lock status}: the lock is free. */
  public static final int EXIT_FREE = 0;
  /** {@code cryo lock status}: held by a live holder, or one on another host (unknown). */
  public static final int EXIT_HELD = 1;
  /** {@code cryo lock status}: held by a provably dead holder; reclaimable. */
  public static final int EXIT_DEAD = 2;
  /** {@code cryo lock status}: malformed, not a regular file, or unreadable. */
  public static final int EXIT_UNUSABLE = 3;

  /**
   * The holder named by a lock record.
   *
   * @param pid the holder's process id
   * @param start its start time in clock ticks since boot, or null when not recorded
   * @param boot the boot id of its machine, or null
   * @param machine the identity of its machine ({@code /etc/machine-id}), or null
   * @param host its host name, or null
   * @param name the free-text holder name, or null
   * @param token the random token of this acquisition, or null (bare-pid records)
   * @param since when the lock was taken (ISO-8601, UTC), or null
   * @param companion a second process whose life keeps the lock held, or null
   */
  @JsonPropertyOrder({"pid", "start", "boot", "machine", "host", "name", "token", "since",
      "companion"})
  public record Holder(
      long pid,
      Long start,
      String boot,
      String machine,
      String host,
      String name,
      String token,
      String since,
      Companion companion) {

    /** The holder named by {@code record}. */
    public static Holder of(LockRecord record) {
      return new Holder(
          record.pid(),
          record.start() < 0 ? null : record.start(),
          record.bootId(),
          record.machineId(),
          record.host(),
          record.holder(),
          record.token(),
          record.since() == null ? null : record.since().toString(),
          record.companionPid() <= 0 ? null : new Companion(record.companionPid(),
              record.companionStart() < 0 ? null : record.companionStart()));
    }
  }

  /**
   * The companion process of a record (the command of {@code cryo lock run}).
   *
   * @param pid its process id
   * @param start its start time in clock ticks since boot, or null when unknown
   */
  @JsonPropertyOrder({"pid", "start"})
  public record Companion(long pid, Long start) {}

  /** Judges what {@code reading} found at {@code lockFile}, against {@code table}, at {@code now}. */
  public static LockStatusReport of(Path lockFile, LockReading reading, ProcessTable table,
      Instant now) {
    String path = lockFile.toString();
    return switch (reading) {
      case LockReading.Absent absent -> new LockStatusReport(path, FREE, null, false, null, null);
      case LockReading.Present present -> {
        HolderVerdict verdict = HolderVerdict.judge(present.record(), table);
        yield new LockStatusReport(path, HELD, verdict.liveness().code(),
            verdict.liveness() == Liveness.DEAD, verdict.reason(), Holder.of(present.record()));
      }
      case LockReading.Malformed malformed -> {
        Instant reclaimableAt = ProcessLock.malformedReclaimableAt(malformed.modified(), now);
        boolean graceOver = !now.isBefore(reclaimableAt);
        yield new LockStatusReport(path, MALFORMED, null, graceOver,
            "the record does not parse: " + malformed.problem() + "; last changed "
                + malformed.modified()
                + (malformed.modified().isAfter(now.plus(ProcessLock.MAX_CLOCK_SKEW))
                    ? " (more than " + ProcessLock.MAX_CLOCK_SKEW.toSeconds() + " s ahead of this"
                        + " clock: not believed)" : "")
                + (graceOver ? ", so it is reclaimable"
                    : ", so it is respected until " + reclaimableAt), null);
      }
      case LockReading.NotRegular notRegular -> new LockStatusReport(path, NOT_REGULAR, null,
          false, "the lockfile's path holds " + notRegular.kind() + ", not a lockfile; cryo"
              + " neither follows nor removes it", null);
      case LockReading.Unreadable unreadable -> new LockStatusReport(path, UNREADABLE, null,
          false, "the lockfile cannot be read: " + unreadable.problem(), null);
    };
  }

  /** The exit code of {@code cryo lock status} for this report. */
  public int exitCode() {
    return switch (state) {
      case FREE -> EXIT_FREE;
      case HELD -> Liveness.DEAD.code().equals(liveness) ? EXIT_DEAD : EXIT_HELD;
      default -> EXIT_UNUSABLE;
    };
  }

  /** The report for people: a first line saying what the lock is, then the holder's fields. */
  public String toText() {
    StringBuilder text = new StringBuilder(lockFile).append(": ");
    switch (state) {
      case FREE -> text.append("free\n");
      case HELD -> {
        text.append("held, holder ").append(liveness).append(" (").append(reason).append(")\n");
        appendField(text, "pid", holder.pid() + (holder.start() == null ? ""
            : " (started at tick " + holder.start() + ")"));
        appendField(text, "host", holder.host());
        appendField(text, "boot", holder.boot());
        appendField(text, "machine", holder.machine());
        appendField(text, "holder", holder.name());
        appendField(text, "since", holder.since());
        appendField(text, "token", holder.token());
        if (holder.companion() != null) {
          appendField(text, "companion", "pid " + holder.companion().pid()
              + (holder.companion().start() == null ? ""
                  : " (started at tick " + holder.companion().start() + ")"));
        }
        if (reclaimable) {
          text.append("The holder is dead: the next acquirer reclaims this lock, and"
              + " 'cryo lock break' removes it now.\n");
        }
      }
      case MALFORMED -> text.append("malformed: ").append(reason).append('\n');
      case NOT_REGULAR -> text.append("not a regular file: ").append(reason)
          .append("; remove it by hand if nobody should be there\n");
      default -> text.append("unreadable: ").append(reason).append('\n');
    }
    return text.toString();
  }

  private static void appendField(StringBuilder text, String name, String value) {
    if (value != null) {
      text.append("  ").append(String.format("%-10s", name)).append(' ').append(value)
          .append('\n');
    }
  }
}
