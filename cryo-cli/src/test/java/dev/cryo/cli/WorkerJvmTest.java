package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.WorkerCommand;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.SpawnPayload;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a worker JVM is run, seen from outside in real processes: it ends at once on an
 * OutOfMemoryError, and it never inherits the admin token.
 */
class WorkerJvmTest {

  @TempDir Path scratch;

  @Test
  void aWorkerJvmEndsAtOnceOnAnOutOfMemoryErrorEvenIfTheErrorIsCaught() throws Exception {
    List<String> command = WorkerCommand.jvm(OutOfMemoryMain.class.getName(),
        System.getProperty("java.class.path"), List.of())
        .command(spawn32MiB());
    Path out = scratch.resolve("out.txt");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).start();
    try {
      boolean ended = process.waitFor(Poll.PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(ended).as("the JVM ended; its output: %s", Files.readString(out)).isTrue();
      assertThat(process.exitValue()).isEqualTo(3);
      assertThat(Files.readString(out)).contains("Terminating due to java.lang.OutOfMemoryError")
          .doesNotContain("survived");
    } finally {
      process.destroyForcibly();
    }
  }

  /** A spawn payload with a 32 MiB heap, read as a worker reads it (the other parts unused). */
  private static SpawnPayload spawn32MiB() {
    return ProtocolCodec.read(("{\"name\":\"oom\",\"wire\":\"w\",\"freezer\":\"f\","
        + "\"application\":\"a\",\"heapBytes\":" + (32L << 20) + "}")
        .getBytes(StandardCharsets.UTF_8), SpawnPayload.class);
  }

  @Test
  void theWorkersOfARunNeverSeeTheAdminTokenAndEndOnOutOfMemory() throws Exception {
    String token = "a-token-of-at-least-32-characters-0123456789";
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), List.of(),
        Map.of("CRYO_ADMIN_TOKEN", token))) {
      List<ProcessHandle> workers = run.workerProcesses();
      assertThat(workers).isNotEmpty();
      for (ProcessHandle worker : workers) {
        String environment = Files.readString(Path.of("/proc", Long.toString(worker.pid()),
            "environ"), StandardCharsets.ISO_8859_1);
        String commandLine = Files.readString(Path.of("/proc", Long.toString(worker.pid()),
            "cmdline"), StandardCharsets.ISO_8859_1);
        assertThat(environment).contains("CRYO_WORKER_SPAWN=").doesNotContain("CRYO_ADMIN_TOKEN")
            .doesNotContain(token);
        assertThat(commandLine).contains("-XX:+ExitOnOutOfMemoryError");
      }
    }
  }
}
