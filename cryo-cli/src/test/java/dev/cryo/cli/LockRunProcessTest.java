package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.cli.InProcess.Result;
import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockReading;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo lock run} as a real process: a child JVM running the CLI, real commands, real signals
 * sent with kill(1). Every wait is a bounded poll on a file or a condition.
 */
class LockRunProcessTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  @TempDir Path scratch;

  private Path lock() {
    return dir.resolve(".lock");
  }

  @Test
  void theCommandsExitStatusIsPropagated() throws Exception {
    try (ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", dir.toString(), "--",
        "sh", "-c", "echo out; echo err >&2; exit 42")) {
      assertThat(cryo.exitCode()).isEqualTo(42);
      assertThat(cryo.out()).isEqualTo("out\n");
      assertThat(cryo.err()).isEqualTo("err\n");
    }
    assertThat(lock()).doesNotExist();
  }

  @Test
  void busyAfterTheWaitExits75WithOneLineNamingTheHolder() throws Exception {
    Path marker = dir.resolve("ran");
    try (ProcessLock held = ProcessLock.acquire(dir, Duration.ZERO, "the test itself");
        ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", "--wait", "300ms",
            dir.toString(), "--", "touch", marker.toString())) {
      assertThat(cryo.exitCode()).isEqualTo(ExitCodes.BUSY);
      assertThat(cryo.out()).isEmpty();
      assertThat(cryo.err()).endsWith("\n");
      assertThat(cryo.err().strip()).doesNotContain("\n")
          .startsWith("cryo lock run: busy: lock " + held.lockFile() + " is held by pid "
              + ProcessHandle.current().pid() + " on " + held.record().host())
          .contains("(\"the test itself\")", "since " + held.record().since());
      assertThat(marker).doesNotExist();
      assertThat(LockRecord.parse(Files.readAllBytes(lock()))).isEqualTo(held.record());
    }
  }

  /**
   * The heart of {@code cryo lock run}: kill -9 of cryo while its command runs leaves the lock held
   * (the command is its companion); once the command ends the lock is reclaimable.
   */
  @Test
  void afterSigkillOfCryoTheLockIsHeldWhileTheCommandRunsThenReclaimable() throws Exception {
    Path started = dir.resolve("started");
    Path go = dir.resolve("go");
    Path finished = dir.resolve("finished");
    String script = "echo $$ > '" + started + "'; while [ ! -e '" + go + "' ]; do sleep 0.02;"
        + " done; echo done > '" + finished + "'";
    try (ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", "--holder", "kill test",
        dir.toString(), "--", "sh", "-c", script)) {
      long commandPid = awaitCompanion(cryo, started);
      cryo.adopt(commandPid);
      LockRecord before = LockRecord.parse(Files.readAllBytes(lock()));
      assertThat(before.pid()).isEqualTo(cryo.pid());

      ChildCryo.kill("KILL", cryo.pid());
      assertThat(cryo.exitCode()).isEqualTo(128 + 9);
      assertThat(ProcessHandle.of(commandPid).map(ProcessHandle::isAlive)).contains(true);

      // Still held: the record is unchanged and judged alive through its companion.
      assertThat(LockRecord.parse(Files.readAllBytes(lock()))).isEqualTo(before);
      JsonNode held = status(1);
      assertThat(held.get("state").asText()).isEqualTo("held");
      assertThat(held.get("liveness").asText()).isEqualTo("alive");
      assertThat(held.get("reason").asText()).isEqualTo("companion pid " + commandPid
          + " is alive");
      assertThat(held.at("/holder/pid").asLong()).isEqualTo(cryo.pid());
      assertThat(held.at("/holder/companion/pid").asLong()).isEqualTo(commandPid);
      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofMillis(100)))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("companion pid " + commandPid + " is alive");
      Result refused = InProcess.cryo("lock", "break", dir.toString());
      assertThat(refused.exitCode()).isEqualTo(LockBreakCommand.EXIT_REFUSED);
      assertThat(lock()).exists();

      // The command ends: both processes are gone, the lock is provably dead.
      Files.createFile(go);
      Poll.until("the command has finished", () -> Files.exists(finished));
      Poll.until("the command's process is gone", () -> !ProcessHandle.of(commandPid)
          .map(ProcessHandle::isAlive).orElse(false) || zombie(commandPid));
      Poll.until("status says dead", () -> InProcess.cryo("lock", "status", dir.toString())
          .exitCode() == LockStatusReport.EXIT_DEAD);
      JsonNode dead = status(2);
      assertThat(dead.get("liveness").asText()).isEqualTo("dead");
      assertThat(dead.get("reclaimable").asBoolean()).isTrue();
      try (ProcessLock next = ProcessLock.acquire(dir, Duration.ZERO, "next")) {
        assertThat(next.record().pid()).isEqualTo(ProcessHandle.current().pid());
      }
      assertThat(lock()).doesNotExist();
    }
  }

  @Test
  void sigtermToCryoReachesTheCommandAndCryoExitsWithItsStatusAndReleases() throws Exception {
    Path started = dir.resolve("started");
    Path term = dir.resolve("term");
    String script = "trap 'echo got-term > \"" + term + "\"; exit 3' TERM; echo $$ > '" + started
        + "'; while :; do sleep 0.02; done";
    try (ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", dir.toString(), "--",
        "sh", "-c", script)) {
      long commandPid = awaitCompanion(cryo, started);
      cryo.adopt(commandPid);
      ChildCryo.kill("TERM", cryo.pid());
      assertThat(cryo.exitCode()).as(cryo.err()).isEqualTo(3);
      assertThat(term).hasContent("got-term\n");
      assertThat(cryo.err()).isEmpty();
      assertThat(lock()).doesNotExist();
    }
  }

  @Test
  void sigintToCryoReachesTheCommandWhenNoTerminalDeliveredIt() throws Exception {
    assumeThat(ignoredByThisJvm(2)).as("SIGINT is ignored here (a background job)").isFalse();
    Path started = dir.resolve("started");
    Path interrupted = dir.resolve("int");
    String script = "trap 'echo got-int > \"" + interrupted + "\"; exit 5' INT; echo $$ > '"
        + started + "'; while :; do sleep 0.02; done";
    try (ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", dir.toString(), "--",
        "sh", "-c", script)) {
      cryo.adopt(awaitCompanion(cryo, started));
      ChildCryo.kill("INT", cryo.pid());
      assertThat(cryo.exitCode()).as(cryo.err()).isEqualTo(5);
      assertThat(interrupted).hasContent("got-int\n");
      assertThat(lock()).doesNotExist();
    }
  }

  /**
   * Ctrl-C in a terminal signals the whole foreground process group, cryo and its command alike:
   * cryo must not send the command a second SIGINT. The terminal is a pseudo-terminal of script(1).
   */
  @Test
  void ctrlCInATerminalReachesTheCommandOnlyOnce() throws Exception {
    assumeThat(ignoredByThisJvm(2)).as("SIGINT is ignored here (a background job)").isFalse();
    assumeThat(Stream.of("/usr/bin/script", "/bin/script").anyMatch(p -> Files.isExecutable(
        Path.of(p)))).as("script(1) provides the pseudo-terminal").isTrue();
    Path started = dir.resolve("started");
    Path interrupts = dir.resolve("interrupts");
    // Each SIGINT appends a line; the pause lets a second one arrive before the shell exits.
    String script = "trap 'echo int >> \"" + interrupts + "\"; sleep 0.5; exit 4' INT; echo $$ > '"
        + started + "'; while :; do sleep 0.02; done";
    // script(1) runs the line with $SHELL -c; "exec" makes cryo itself the terminal's foreground
    // process, whatever that shell is (a shell left waiting in between would die of the Ctrl-C).
    String commandLine = "exec " + String.join(" ", ChildCryo.command("lock", "run",
        dir.toString(), "--", "sh", "-c", script).stream().map(LockRunProcessTest::shellQuoted)
        .toList());
    ProcessBuilder builder = new ProcessBuilder("script", "-qefc", commandLine, "/dev/null")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("SHELL", "/bin/sh");
    Process terminal = builder.start();
    try {
      Poll.until("the command started", () -> Files.exists(started)
          && readQuietly(started).endsWith("\n"));
      long commandPid = Long.parseLong(readQuietly(started).strip());
      Poll.until("the record names the command as companion", () ->
          LockFile.at(lock()).read() instanceof LockReading.Present present
              && present.record().companionPid() == commandPid);
      terminal.getOutputStream().write(3); // Ctrl-C, typed on the terminal
      terminal.getOutputStream().flush();
      assertThat(terminal.waitFor(Poll.PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .as("cryo ended").isTrue();
      assertThat(terminal.exitValue()).isEqualTo(4);
      assertThat(interrupts).hasContent("int\n");
      assertThat(lock()).doesNotExist();
    } finally {
      terminal.descendants().forEach(ProcessHandle::destroyForcibly);
      terminal.destroyForcibly();
    }
  }

  @Test
  void aSignalWhileWaitingForTheLockStopsCryoWithoutRunningTheCommand() throws Exception {
    Path marker = dir.resolve("ran");
    try (ProcessLock held = ProcessLock.acquire(dir, Duration.ZERO, "the test itself");
        ChildCryo cryo = ChildCryo.start(scratch, "lock", "run", "--wait", "forever",
            dir.toString(), "--", "touch", marker.toString())) {
      // cryo installs its handlers before it waits; it waits with a file-change watch.
      Poll.until("cryo waits on a file-change watch", () -> watching(cryo.pid()));
      ChildCryo.kill("TERM", cryo.pid());
      assertThat(cryo.exitCode()).as(cryo.err()).isEqualTo(128 + 15);
      assertThat(cryo.err()).contains("interrupted: SIGTERM arrived before COMMAND started");
      assertThat(marker).doesNotExist();
      assertThat(LockRecord.parse(Files.readAllBytes(lock()))).isEqualTo(held.record());
    }
  }

  /** Waits until the command wrote its pid and the record names it as companion; returns it. */
  private long awaitCompanion(ChildCryo cryo, Path started) throws Exception {
    Poll.until("the command started", () -> {
      assertThat(cryo.process().isAlive()).as("cryo is alive").isTrue();
      return Files.exists(started) && readQuietly(started).endsWith("\n");
    });
    long commandPid = Long.parseLong(readQuietly(started).strip());
    Poll.until("the record names the command as companion", () ->
        LockFile.at(lock()).read() instanceof LockReading.Present present
            && present.record().companionPid() == commandPid);
    return commandPid;
  }

  private JsonNode status(int expectedExit) throws IOException {
    Result result = InProcess.cryo("lock", "status", "--json", dir.toString());
    assertThat(result.exitCode()).as(result.out() + result.err()).isEqualTo(expectedExit);
    return JSON.readTree(result.out());
  }

  private static String shellQuoted(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static boolean zombie(long pid) {
    String stat = readQuietly(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.isEmpty() || stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
  }

  /** Whether a process has an inotify descriptor open (what a waiting ProcessLock uses). */
  private static boolean watching(long pid) {
    try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return descriptors.anyMatch(fd -> {
        try {
          return Files.readSymbolicLink(fd).toString().contains("inotify");
        } catch (IOException e) {
          return false;
        }
      });
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean ignoredByThisJvm(int signal) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << (signal - 1))) != 0;
      }
    }
    return false;
  }

  /**
   * SIGTERM ignored from the start (as under nohup-like supervisors) is inherited by the gate: when
   * the lock is lost before the record names the command, cryo must still end the gate (which has
   * not run the command) and exit, never wait for it forever.
   */
  @Test
  void aLockLostBeforeTheCommandStartsEndsTheGateEvenWithSigtermIgnored() throws Exception {
    Path marker = dir.resolve("ran");
    try (ChildCryo cryo = ChildCryo.start(scratch,
        List.of("/bin/sh", "-c", "trap '' TERM; exec \"$@\"", "sh"), LockLostMain.class,
        "lock", "run", dir.toString(), "--", "touch", marker.toString())) {
      assertThat(cryo.exitCode()).as(cryo.err()).isEqualTo(ExitCodes.IO);
      assertThat(cryo.err()).contains("lock taken away", "lock_lost", "COMMAND was not started");
    }
    assertThat(marker).doesNotExist();
  }
}
