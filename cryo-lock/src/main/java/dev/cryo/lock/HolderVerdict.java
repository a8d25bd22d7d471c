package dev.cryo.lock;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The judgement of a lock holder's life, with the reason in words.
 *
 * <p>A holder is {@link Liveness#DEAD} only on proof: its boot id differs from this machine's (it
 * ran before the last reboot); or, on this host and boot, no live process has its pid; or a live
 * process has its pid but started at another time (the pid was reused). A record from another host
 * is {@link Liveness#UNKNOWN}, never reclaimed automatically. A record naming a companion process is
 * alive while either process is. A bare-pid record (no host, no boot, no start) is judged on its pid
 * alone, as a process of this machine.
 *
 * @param liveness what is proved
 * @param reason why, in one line
 */
public record HolderVerdict(Liveness liveness, String reason) {

  /** Validates the components. */
  public HolderVerdict {
    Objects.requireNonNull(liveness);
    Objects.requireNonNull(reason);
  }

  /** Judges the holder named by {@code record} against this machine's process table. */
  public static HolderVerdict judge(LockRecord record, ProcessTable table) {
    if (record.host() != null && table.host() != null && !record.host().equals(table.host())) {
      return new HolderVerdict(Liveness.UNKNOWN,
          "the holder runs on host " + record.host() + ", not on " + table.host()
              + ": nothing can be proved from here");
    }
    if (record.bootId() != null && table.bootId() != null
        && !record.bootId().equals(table.bootId())) {
      return new HolderVerdict(Liveness.DEAD,
          "the holder ran before this machine's last boot (boot id " + record.bootId() + ")");
    }
    HolderVerdict main = judgeProcess("pid", record.pid(), record.start(), table);
    if (main.liveness() == Liveness.ALIVE || record.companionPid() <= 0) {
      return main;
    }
    HolderVerdict companion =
        judgeProcess("companion pid", record.companionPid(), record.companionStart(), table);
    if (companion.liveness() == Liveness.ALIVE) {
      return companion;
    }
    return new HolderVerdict(Liveness.DEAD, main.reason() + ", and " + companion.reason());
  }

  private static HolderVerdict judgeProcess(String what, long pid, long start, ProcessTable table) {
    OptionalLong actual = table.startOf(pid);
    if (actual.isEmpty()) {
      return new HolderVerdict(Liveness.DEAD, "no live process has " + what + " " + pid);
    }
    long now = actual.getAsLong();
    if (start >= 0 && now >= 0 && now != start) {
      return new HolderVerdict(Liveness.DEAD,
          what + " " + pid + " now belongs to another process (started at tick " + now
              + ", the holder at tick " + start + ")");
    }
    return new HolderVerdict(Liveness.ALIVE, what + " " + pid + " is alive");
  }
}
