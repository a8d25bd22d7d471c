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
 * group's id is the pid. Thread-safe.
 */
final class WorkerProcess {

  private static final System.Logger LOG = System.getLogger(WorkerProcess.class.getName());
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private final String name;
  private final Process process;

  private WorkerProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  /**
   * Starts the worker of {@code spawn}.
   *
   * @param log the file its standard output and error are appended to (created if missing)
   * @throws IOException when the command cannot be started
   */
  static WorkerProcess start(WorkerCommand command, SpawnPayload spawn, Path log)
      throws IOException {
    List<String> line = command.command(spawn);
    ProcessBuilder builder = new ProcessBuilder(line);
    builder.environment().put(SpawnPayload.ENVIRONMENT,
        new String(ProtocolCodec.write(spawn), StandardCharsets.UTF_8));
    Files.createDirectories(log.getParent());
    File file = log.toFile();
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(file));
    builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process process = builder.start();
    LOG.log(Level.INFO, "worker " + spawn.name() + " spawned as pid " + process.pid()
        + " (its output goes to " + log + ")");
    return new WorkerProcess(spawn.name(), process);
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
   * its group yet), and waits a bounded while for it to exit. Idempotent.
   *
   * @return whether the process has exited
   */
  boolean killGroup() {
    long group = process.pid();
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
    process.destroyForcibly();
    try {
      return process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  @Override
  public String toString() {
    return "WorkerProcess[" + Objects.requireNonNull(name) + ", pid " + process.pid() + "]";
  }
}
