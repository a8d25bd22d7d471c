package dev.cryo.lock;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The judgement of a lock holder's life, with the reason in words.
 *
 * <p>A holder is {@link Liveness#DEAD} only on proof, and only a holder of this machine can be
 * proved dead: its boot id differs from this machine's (it ran before the last reboot); or, in this
 * boot, no live process has its pid; or a live process has its pid but started at another time (the
 * pid was reused). A record of another machine is {@link Liveness#UNKNOWN}, never reclaimed
 * automatically. A record naming a companion process is alive while either process is. A bare-pid
 * record (no machine, host, boot or start) is judged on its pid alone, as a process of this machine.
 *
 * <p>Which machine a record is of: a host name alone proves nothing (two machines may bear one on
 * shared storage, and each would read the other's boot id as a boot of its own that is over), so a
 * record carries the machine id ({@link ProcessTable#machineId}). A record is of another machine
 * when its machine id or its host name differs from this machine's (either differing is enough: a
 * machine id repeats where an image was copied with it, a host name where two machines were named
 * alike), or when it names a machine id and this machine has none to compare with. A record that
 * names no machine id (an older writer's, or a machine without one) is judged by its host name, as
 * before machine ids were recorded: two machines without machine ids but with one host name cannot
 * be told apart.
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
    if (record.machineId() != null && !record.machineId().equals(table.machineId())) {
      return new HolderVerdict(Liveness.UNKNOWN,
          "the holder runs on machine " + record.machineId()
              + (record.host() == null ? "" : " (host " + record.host() + ")") + ", not on "
              + (table.machineId() == null ? "this machine, which has no machine id"
                  : "this one (" + table.machineId() + ")") + ": nothing can be proved from here");
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
