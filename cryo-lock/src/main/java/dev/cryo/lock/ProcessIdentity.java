package dev.cryo.lock;

/**
 * Who a process is, in the terms a {@link LockRecord} uses: pid, start time (clock ticks since boot,
 * or {@code -1} when unknown), the machine's boot id, the machine's identity and host name.
 *
 * @param pid the process id
 * @param start the start time in clock ticks since boot, or {@code -1}
 * @param bootId the boot id of the machine, or {@code null} when unknown
 * @param machineId the machine's identity ({@code /etc/machine-id}: 32 lowercase hex digits), or
 *     {@code null} when unknown
 * @param host the host name, or {@code null} when unknown
 */
public record ProcessIdentity(long pid, long start, String bootId, String machineId, String host) {

  /** An identity without a machine id (what writers that record none know). */
  public ProcessIdentity(long pid, long start, String bootId, String host) {
    this(pid, start, bootId, null, host);
  }

  /** This JVM, as seen by the {@linkplain ProcessTable#system() system process table}. */
  public static ProcessIdentity current() {
    return ProcessTable.system().current();
  }
}
