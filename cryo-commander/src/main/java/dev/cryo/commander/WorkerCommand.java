package dev.cryo.commander;

import dev.cryo.wire.protocol.SpawnPayload;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a worker JVM is started: the command line for one spawn payload. The commander runs it with
 * the payload in the environment variable {@link SpawnPayload#ENVIRONMENT}; the command must put the
 * worker in a process group of its own whose id is the process's pid ({@code setsid}, which execs
 * in place when its caller leads no group, as a JVM's child does), since the commander kills the
 * whole group. Implementations are immutable and thread-safe.
 *
 * <p>The commands made here run the worker under the umask {@value #UMASK}: what it creates
 * without a mode of its own (a JVM's crash log, an application's files) is its user's alone. The
 * Java API cannot set a umask, so a shell sets it and execs the JVM in its place: the worker keeps
 * the pid, which is its group's id.
 */
@FunctionalInterface
public interface WorkerCommand {

  /** The worker's process entry point. */
  String WORKER_MAIN = "dev.cryo.worker.WorkerMain";

  /**
   * The JVM flag every worker runs with: an {@link OutOfMemoryError} ends the JVM at once (exit
   * code 3) instead of killing one thread and leaving a half-working worker that still answers;
   * the commander then sees the death and its users come back by the crash paths.
   */
  String EXIT_ON_OUT_OF_MEMORY = "-XX:+ExitOnOutOfMemoryError";

  /** The umask a worker runs under: nothing it creates is readable by anybody else. */
  String UMASK = "077";

  /** The command line that starts the worker of {@code spawn}. */
  List<String> command(SpawnPayload spawn);

  /**
   * The default: {@code setsid sh -c 'umask 077 && exec "$@"' <this JVM's java> -Xmx<heap>
   * -XX:+ExitOnOutOfMemoryError <the payload's jvmOptions…> -cp <this JVM's classpath>
   * dev.cryo.worker.WorkerMain}.
   */
  static WorkerCommand defaultJvm() {
    return jvm(WORKER_MAIN, System.getProperty("java.class.path"), List.of());
  }

  /**
   * {@code setsid sh -c 'umask 077 && exec "$@"' <this JVM's java> -Xmx<heap>
   * -XX:+ExitOnOutOfMemoryError <jvmOptions…> <the payload's jvmOptions…> -cp <classpath>
   * <mainClass>}: for a worker main of
   * one's own (tests use a fake worker speaking the protocol).
   */
  static WorkerCommand jvm(String mainClass, String classpath, List<String> jvmOptions) {
    Objects.requireNonNull(mainClass, "mainClass");
    Objects.requireNonNull(classpath, "classpath");
    List<String> options = List.copyOf(jvmOptions);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return spawn -> {
      List<String> command = new ArrayList<>();
      command.add("setsid");
      command.add("/bin/sh");
      command.add("-c");
      command.add("umask " + UMASK + " && exec \"$@\"");
      command.add("cryo-worker"); // $0 of the shell, which the exec replaces
      command.add(java);
      command.add("-Xmx" + spawn.heapBytes());
      command.add(EXIT_ON_OUT_OF_MEMORY);
      command.addAll(options);
      command.addAll(spawn.jvmOptions()); // the operator's: --worker-jvm-option, as reloaded
      command.add("-cp");
      command.add(classpath);
      command.add(mainClass);
      return command;
    };
  }
}
