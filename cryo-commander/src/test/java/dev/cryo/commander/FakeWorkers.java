package dev.cryo.commander;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Helpers of the tests that run a commander over fake worker JVMs ({@link FakeWorkerMain}). */
final class FakeWorkers {

  private static final ObjectMapper JSON = new ObjectMapper();

  private FakeWorkers() {
  }

  /** A configuration whose workers are fake worker JVMs started with {@code options}. */
  static CommanderConfig.Builder config(Path home, String... options) {
    List<String> jvm = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    jvm.addAll(List.of(options));
    return CommanderConfig.builder(home, "test.FakeApplication")
        .workerCommand(WorkerCommand.jvm(FakeWorkerMain.class.getName(),
            System.getProperty("java.class.path"), jvm))
        .workerHeapBytes(64L * 1024 * 1024)
        .heartbeat(Duration.ofSeconds(1)) // two beats of silence kill: not too tight under load
        .startBackoff(Duration.ofMillis(50));
  }

  /** A GET of {@code path} from connection {@code connection}. */
  static Request get(String connection, String path) {
    return new Request(connection, "GET", path, "", List.of(Map.entry("Accept", "*/*")), null);
  }

  /** A POST of {@code path} from connection {@code connection}. */
  static Request post(String connection, String path) {
    return new Request(connection, "POST", path, "", List.of(), new byte[0]);
  }

  /** The events of the run's log, in order. */
  static List<JsonNode> events(Commander commander) throws IOException {
    List<JsonNode> events = new ArrayList<>();
    for (String line : Files.readAllLines(commander.eventLog())) {
      events.add(JSON.readTree(line));
    }
    return events;
  }

  /** The events of type {@code event}. */
  static List<JsonNode> events(Commander commander, String event) throws IOException {
    return events(commander).stream().filter(e -> e.path("event").asText().equals(event)).toList();
  }

  /** How many events of type {@code event} the log holds now (-1 when it does not read). */
  static int count(Commander commander, String event) {
    try {
      return events(commander, event).size();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Waits, polling, until {@code condition} holds or {@code timeout} passes: for what happens in
   * another process, which no in-JVM signal can tell.
   */
  static boolean eventually(Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return condition.getAsBoolean();
  }

  /** Whether the process {@code pid} is gone. */
  static boolean gone(long pid) {
    return ProcessHandle.of(pid).map(handle -> !handle.isAlive()).orElse(true);
  }

  /** Sends {@code SIG<signal>} to {@code pid} (a no-op for a process gone). */
  static void signal(String signal, long pid) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
  }

  /** Whether {@code thread} is, right now, inside a frame of {@code frame} ({@code Class.method}). */
  static boolean inside(Thread thread, String frame) {
    for (StackTraceElement element : thread.getStackTrace()) {
      String name = element.getClassName();
      if ((name.substring(name.lastIndexOf('.') + 1) + "." + element.getMethodName())
          .equals(frame)) {
        return true;
      }
    }
    return false;
  }

  /** Sends SIGKILL to {@code pid}, as an operator's {@code kill -9} would. */
  static void kill9(long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -9 " + pid + " failed");
    }
  }
}
