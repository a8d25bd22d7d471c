package dev.cryo.lock;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The facts about live processes that a proof of death rests on: whether a pid names a live process
 * and when that process started, the machine's boot id and host name.
 *
 * <p>On Linux they come from {@code /proc}: a pid is live when {@code /proc/PID/stat} exists and its
 * state is not dead, nor zombie with no other thread left; its start is field 22 of that file
 * (clock ticks since boot, which never drifts with the wall clock); the boot id is {@code /proc/sys/kernel/random/boot_id},
 * the machine's identity {@code /etc/machine-id} ({@link #machineId}).
 * Elsewhere {@link ProcessHandle} answers, with the start in epoch milliseconds and no boot id.
 * Instances are thread-safe; on Linux one keeps the {@code /proc/PID/stat} of the last few pids it
 * was asked about open ({@link #KEPT_STATS}), which changes where a state is read, never what.
 */
public final class ProcessTable {

  private static final Path PROC = Path.of("/proc");
  private static final List<Path> MACHINE_ID_FILES =
      List.of(Path.of("/etc/machine-id"), Path.of("/var/lib/dbus/machine-id"));
  private static final ProcessTable SYSTEM = new ProcessTable(Files.isDirectory(PROC.resolve("self")));

  private final boolean procfs;
  private final String bootId;
  private final String machineId;
  private final String host;
  private volatile ProcessIdentity current;

  private ProcessTable(boolean procfs) {
    this.procfs = procfs;
    this.bootId = procfs ? readBootId() : null;
    this.machineId = readMachineId();
    this.host = readHost(procfs);
  }

  /** The process table of this machine. */
  public static ProcessTable system() {
    return SYSTEM;
  }

  /** This JVM's identity. */
  public ProcessIdentity current() {
    ProcessIdentity self = current;
    if (self == null) {
      long pid = ProcessHandle.current().pid();
      self = new ProcessIdentity(pid, startOf(pid).orElse(-1), bootId, machineId, host);
      current = self;
    }
    return self;
  }

  /** The boot id of this machine, or {@code null} when it has none this table can read. */
  public String bootId() {
    return bootId;
  }

  /**
   * The identity of this machine, or {@code null} when it has none this table can read: the
   * systemd machine id ({@code /etc/machine-id}, else {@code /var/lib/dbus/machine-id}), 32
   * lowercase hex digits, set once when the system is installed and kept across boots. An empty
   * file, {@code uninitialized} (a first boot) or all zeros is none.
   *
   * <p>Why this and not the host name: host names repeat (two machines named {@code build-7} on one
   * file server, a cloned virtual machine renamed late), and a boot id only tells boots of one
   * machine apart; a record of another machine judged by this machine's boot id reads as a boot
   * that is over, and a live lock would be taken. A machine id repeats only where an image was
   * copied with its {@code /etc/machine-id} (some container images do), which is why a record is
   * judged as this machine's only when its host name agrees as well ({@link HolderVerdict}).
   */
  public String machineId() {
    return machineId;
  }

  /** The host name of this machine (printable ASCII), or {@code null} when unknown. */
  public String host() {
    return host;
  }

  /**
   * The start of the live process with this pid, or empty when no live process has it. A zombie
   * (exited, not yet reaped) is not live; a process whose main thread is a zombie while other
   * threads remain is.
   */
  public OptionalLong startOf(long pid) {
    if (pid <= 0) {
      return OptionalLong.empty();
    }
    if (!procfs) {
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .flatMap(handle -> handle.info().startInstant())
          .map(instant -> OptionalLong.of(instant.toEpochMilli()))
          .orElse(OptionalLong.empty());
    }
    byte[] stat = new byte[STAT_BYTES];
    int length = readKeptStat(pid, stat);
    if (length < 0) {
      try {
        Path file = PROC.resolve(Long.toString(pid)).resolve("stat");
        length = Uninterruptible.call(() -> openAndKeep(pid, file, stat));
      } catch (NoSuchFileException e) {
        return OptionalLong.empty();
      } catch (IOException e) {
        // The process vanished while we read, or procfs refused us: neither proves it alive.
        return Files.exists(PROC.resolve(Long.toString(pid))) ? OptionalLong.of(-1)
            : OptionalLong.empty();
      }
    }
    // "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses, so the fields
    // are counted from the last ')'. Parsed in place: this runs on every refused try of a lock.
    int close = length - 1;
    while (close >= 0 && stat[close] != ')') {
      close--;
    }
    if (close < 0 || length == stat.length) {
      return OptionalLong.of(-1); // not a stat line, or longer than any: proves nothing
    }
    int at = close + 1;
    int[] starts = new int[20];
    int field = 0;
    while (at < length && field < 20) {
      while (at < length && stat[at] == ' ') {
        at++;
      }
      if (at >= length || stat[at] == '\n') {
        break;
      }
      starts[field++] = at;
      while (at < length && stat[at] != ' ' && stat[at] != '\n') {
        at++;
      }
    }
    if (field < 20) {
      return OptionalLong.of(-1);
    }
    byte state = stat[starts[0]];
    boolean oneLetter = starts[0] + 1 >= length || stat[starts[0] + 1] == ' ';
    if (oneLetter && (state == 'X' || state == 'x' || state == 'Z' && !hasOtherThreads(pid))) {
      return OptionalLong.empty();
    }
    long start = 0;
    int digits = 0;
    for (int i = starts[19]; i < length && stat[i] != ' ' && stat[i] != '\n'; i++, digits++) {
      if (stat[i] < '0' || stat[i] > '9' || digits >= 18) {
        return OptionalLong.of(-1);
      }
      start = start * 10 + (stat[i] - '0');
    }
    return digits == 0 ? OptionalLong.of(-1) : OptionalLong.of(start);
  }

  /** Room for any {@code /proc/<pid>/stat} line (about 300 bytes, its name at most 64). */
  private static final int STAT_BYTES = 1024;

  /**
   * How many {@code /proc/PID/stat} files are kept open, for the pids asked about last. A contender
   * of a lock judges its holder on every try, and the holders of one lock are few processes; a
   * descriptor kept open is read again with one positional read instead of an open, a read and a
   * close. It answers for the very process it was opened on: once that process is gone (reaped),
   * a read through it fails ({@code ESRCH}), even if a new process has the pid meanwhile, and the
   * pid is then looked up by name again. So every judgement still reads the process's state at
   * that moment: nothing about a holder's life is remembered, only where to read it.
   */
  private static final int KEPT_STATS = 8;

  /** A {@code /proc/PID/stat} kept open ({@link #KEPT_STATS}). */
  private record KeptStat(long pid, FileChannel channel) {}

  private final AtomicReferenceArray<KeptStat> keptStats = new AtomicReferenceArray<>(KEPT_STATS);
  private final AtomicInteger nextKept = new AtomicInteger();

  /**
   * Reads {@code /proc/PID/stat} into {@code buffer} through a descriptor kept open for {@code pid};
   * the length, or -1 when none is kept or it cannot be read (its process is gone, or an interrupt
   * or another thread closed it): it is then forgotten, and the caller opens the file by name.
   */
  private int readKeptStat(long pid, byte[] buffer) {
    for (int i = 0; i < KEPT_STATS; i++) {
      KeptStat kept = keptStats.get(i);
      if (kept != null && kept.pid() == pid) {
        try {
          return Uninterruptible.call(() -> readInto(kept.channel(), buffer));
        } catch (IOException e) {
          if (keptStats.compareAndSet(i, kept, null)) {
            closeQuietly(kept.channel());
          }
          return -1;
        }
      }
    }
    return -1;
  }

  /** Opens {@code file}, reads it into {@code buffer} (the length), and keeps it open for {@code pid}. */
  private int openAndKeep(long pid, Path file, byte[] buffer) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    boolean kept = false;
    try {
      int length = readInto(channel, buffer);
      KeptStat fresh = new KeptStat(pid, channel);
      int slot = Math.floorMod(nextKept.getAndIncrement(), KEPT_STATS);
      KeptStat evicted = keptStats.getAndSet(slot, fresh);
      kept = true;
      if (evicted != null) {
        closeQuietly(evicted.channel());
      }
      return length;
    } finally {
      if (!kept) {
        channel.close();
      }
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // a descriptor of procfs: nothing to lose
    }
  }

  /**
   * Reads {@code channel}'s file from its start into {@code buffer} until its end or the buffer is
   * full, with positional reads; the length.
   */
  private static int readInto(FileChannel channel, byte[] buffer) throws IOException {
    ByteBuffer into = ByteBuffer.wrap(buffer);
    // procfs gives the whole line, ending in a newline, at the first read: no second read for the
    // end of file then.
    while (into.hasRemaining() && channel.read(into, into.position()) >= 0
        && (into.position() == 0 || buffer[into.position() - 1] != '\n')) {
      // a short read: go on
    }
    return into.position();
  }

  /**
   * Whether the process of a zombie main thread still has other threads. The main thread of a
   * process can end before the others (pthread_exit), and the process runs on; and when a process
   * is killed, its main thread can be a zombie while the other threads are still on their way out,
   * its files (and sockets) not yet closed. Either way it is not gone yet.
   */
  private static boolean hasOtherThreads(long pid) {
    try {
      Path file = PROC.resolve(Long.toString(pid)).resolve("status");
      for (String line : Uninterruptible.call(() ->
          Files.readAllLines(file, StandardCharsets.ISO_8859_1))) {
        if (line.startsWith("Threads:")) {
          return Long.parseLong(line.substring("Threads:".length()).strip()) > 1;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // Gone meanwhile, or unreadable: judged by the main thread alone, as before.
    }
    return false;
  }

  private static String readBootId() {
    try {
      String id = Uninterruptible.call(() ->
          Files.readString(PROC.resolve("sys/kernel/random/boot_id"))).strip();
      return isWord(id) ? id : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static String readMachineId() {
    for (Path file : MACHINE_ID_FILES) {
      try {
        String id = Uninterruptible.call(() -> Files.readString(file, StandardCharsets.ISO_8859_1))
            .strip();
        if (isMachineId(id) && !id.equals("0".repeat(32))) {
          return id;
        }
      } catch (IOException | RuntimeException e) {
        // not there, or unreadable: try the next
      }
    }
    return null;
  }

  private static String readHost(boolean procfs) {
    String name = null;
    if (procfs) {
      try {
        name = Uninterruptible.call(() ->
            Files.readString(PROC.resolve("sys/kernel/hostname"))).strip();
      } catch (IOException e) {
        name = null;
      }
    }
    if (name == null || name.isEmpty()) {
      name = System.getenv("HOSTNAME");
    }
    if (name == null || name.isEmpty()) {
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return null;
      }
    }
    return isWord(name) ? name : null;
  }

  /** {@code [\x21-\x7e]{1,255}}: printable ASCII without spaces (a boot id, a host name). */
  private static boolean isWord(String text) {
    if (text.isEmpty() || text.length() > 255) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  /** {@code [0-9a-f]{32}}: a machine id (no regular expression: it is read at every start-up). */
  private static boolean isMachineId(String text) {
    if (text.length() != 32) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }
}
