package dev.cryo.commander;

import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.SpawnPayload;
import java.io.File;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One spawned worker JVM and its process group: started by a {@link WorkerCommand} with the spawn
 * payload in {@link SpawnPayload#ENVIRONMENT}, its output appended to a log file, killed as a whole
 * group ({@code kill -KILL -- -PGID}). The command makes the process lead its own group, so the
 * group's id is the pid.
 *
 * <p>Pid reuse: once the leader has died and been reaped, its pid may be given to another process
 * — but only once no process of its group is left, since a group's id stays taken while any member
 * lives. So before the group is killed, the process now at that pid (if any) is compared with the
 * leader by its start time ({@code /proc/PID/stat}, read at spawn): another start time means the
 * pid was reused, nothing of the worker is left, and the group is not killed (logged, and told by
 * {@link #killGroup}'s caller through {@link #lastKillSkipped}). No process at that pid: the
 * members still in the group, if any, are the worker's, and are killed. Thread-safe.
 */
final class WorkerProcess {

  private static final System.Logger LOG = System.getLogger(WorkerProcess.class.getName());
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private final String name;
  private final Process process;
  /** The id of the process group killed: the process's pid. */
  private final long group;
  /** The leader's start time in clock ticks since boot ({@code /proc}), or -1 when unknown. */
  private final long startTicks;
  private volatile String skipped;

  private WorkerProcess(String name, Process process, long group, long startTicks) {
    this.name = name;
    this.process = process;
    this.group = group;
    this.startTicks = startTicks;
  }

  /**
   * Wraps a process this JVM started, leading its own group, reading its start time now ({@link
   * #start} does so for a worker; tests of the kill call it for other processes).
   */
  static WorkerProcess of(String name, Process process) {
    return new WorkerProcess(name, process, process.pid(), startTicksOf(process.pid()));
  }

  /**
   * Wraps {@code process} as the leader of group {@code group} started at {@code startTicks}: for
   * tests of a reused pid, where the leader is dead and reaped and {@code group} names another
   * process.
   */
  static WorkerProcess of(String name, Process process, long group, long startTicks) {
    return new WorkerProcess(name, process, group, startTicks);
  }

  /**
   * Environment variables of the commander that a worker never inherits: the application's code
   * runs there and could read them. {@code CRYO_ADMIN_TOKEN} is the admin token ({@code cryo
   * serve --admin-token}'s default).
   */
  static final java.util.Set<String> WITHHELD_ENVIRONMENT = java.util.Set.of("CRYO_ADMIN_TOKEN");

  /**
   * Starts the worker of {@code spawn}.
   *
   * @param log the file its standard output and error are appended to: a private file that exists
   *     (the run's home makes it, {@link dev.cryo.control.RunHome#withPrivateFile})
   * @param shown the log's path for messages
   * @throws IOException when the command cannot be started
   */
  static WorkerProcess start(WorkerCommand command, SpawnPayload spawn, Path log, Path shown)
      throws IOException {
    List<String> line = command.command(spawn);
    ProcessBuilder builder = new ProcessBuilder(line);
    WITHHELD_ENVIRONMENT.forEach(builder.environment()::remove);
    builder.environment().put(SpawnPayload.ENVIRONMENT,
        new String(ProtocolCodec.write(spawn), StandardCharsets.UTF_8));
    File file = log.toFile();
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(file));
    builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process process = builder.start();
    LOG.log(Level.INFO, "worker " + spawn.name() + " spawned as pid " + process.pid()
        + " (its output goes to " + shown + ")");
    return of(spawn.name(), process);
  }

  /** The worker's pid, which is also its process group's id. */
  long pid() {
    return process.pid();
  }

  /** Whether the process is alive. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** Completes when the process has exited. */
  CompletableFuture<Process> onExit() {
    return process.onExit();
  }

  /** The exit status, or empty while it runs. */
  Integer exitStatus() {
    return process.isAlive() ? null : process.exitValue();
  }

  /**
   * Kills the whole process group with SIGKILL, then the process itself (in case it had not led
   * its group yet), and waits a bounded while for it to exit. The group is not killed when its id
   * now names another process than the worker (a reused pid: see the class description); that is
   * logged and kept in {@link #lastKillSkipped}. Idempotent.
   *
   * @return whether the process has exited
   */
  boolean killGroup() {
    String reuse = reuseOf(group);
    skipped = reuse;
    if (reuse != null) {
      LOG.log(Level.WARNING, reuse);
    } else {
      signalGroup(group);
    }
    process.destroyForcibly(); // the JDK's own guard: nothing once it reaped the process
    try {
      return process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  /**
   * Why the last {@link #killGroup} left the group alone (its pid now names another process), or
   * null when it killed the group, or none ran yet.
   */
  String lastKillSkipped() {
    return skipped;
  }

  /** Null when the group {@code group} is the worker's (or is gone), else why it is not. */
  private String reuseOf(long group) {
    long now = startTicksOf(group);
    if (now < 0) {
      return null; // the leader is gone: members left in the group hold its id, so they are ours
    }
    if (startTicks >= 0 ? now == startTicks : process.isAlive()) {
      return null; // the leader itself
    }
    return "worker " + name + " died and its pid " + group + " now names another process (started"
        + " at tick " + now + " since boot, the worker at " + (startTicks < 0 ? "an unknown tick"
        : "tick " + startTicks) + "): the process group " + group + " was not killed; nothing of"
        + " the worker is left in it (a group's id is not reused while any member lives)";
  }

  private void signalGroup(long group) {
    try {
      Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + group)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!kill.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "could not run kill for the group " + group + " of worker " + name
          + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The start time of process {@code pid} in clock ticks since boot (field 22 of
   * {@code /proc/PID/stat}), or -1 when there is no such process or it does not read.
   */
  static long startTicksOf(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[19]); // fields from the state (3rd) on: starttime is the 22nd
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  @Override
  public String toString() {
    return "WorkerProcess[" + Objects.requireNonNull(name) + ", pid " + process.pid() + "]";
  }
}
