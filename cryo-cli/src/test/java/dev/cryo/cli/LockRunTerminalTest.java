package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo lock run} in a real terminal ({@code script(1)} gives it a pseudo-terminal, with cryo
 * and its command in the terminal's foreground process group): a Ctrl-C reaches the command once,
 * from the terminal, and is not sent again; a SIGINT sent to cryo alone (from another terminal,
 * {@code kill -INT}) is forwarded, once. Skipped where {@code script} is missing.
 */
class LockRunTerminalTest {

  @TempDir Path dir;
  @TempDir Path scratch;

  private Process terminal;
  private Path err;

  @BeforeEach
  void needsScript() {
    assumeThat(Files.isExecutable(Path.of("/usr/bin/script"))).isTrue();
  }

  @AfterEach
  void closeTerminal() throws Exception {
    if (terminal != null) {
      terminal.descendants().forEach(ProcessHandle::destroyForcibly);
      terminal.destroyForcibly().waitFor();
    }
  }

  private Path file(String name) {
    return scratch.resolve(name);
  }

  /** Starts {@code cryo lock run DIR -- COMMAND} in a terminal; returns cryo's pid. */
  private long startInATerminal() throws Exception {
    String command = "trap 'echo INT >> " + file("signals") + "' INT;"
        + " trap 'echo HUP >> " + file("signals") + "' HUP;"
        + " echo $PPID > " + file("cryo") + ";"
        + " while [ ! -e " + file("go") + " ]; do sleep 0.02; done";
    List<String> cryo = ChildCryo.command("lock", "run", dir.toString(), "--", "sh", "-c",
        command);
    String line = "exec env CRYO_DEBUG=1 " + cryo.stream().map(LockRunTerminalTest::quoted)
        .collect(Collectors.joining(" ")) + " 2>" + quoted(file("err").toString());
    err = file("err");
    terminal = new ProcessBuilder("/usr/bin/script", "-qfec", line, "/dev/null")
        .redirectOutput(new File("/dev/null"))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    terminal.pid();
    Poll.until("the command started", () -> Files.exists(file("cryo"))
        && readQuietly(file("cryo")).strip().matches("[0-9]+"));
    return Long.parseLong(readQuietly(file("cryo")).strip());
  }

  private static String quoted(String argument) {
    return "'" + argument.replace("'", "'\\''") + "'";
  }

  private static String readQuietly(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private List<String> signals() {
    return readQuietly(file("signals")).lines().toList();
  }

  /** Lets the command end, and waits for the terminal (and cryo in it) to end. */
  private void finish() throws Exception {
    Files.createFile(file("go"));
    assertThat(terminal.waitFor(Poll.PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .as("cryo ended; stderr: %s", readQuietly(err)).isTrue();
    assertThat(dir.resolve(".lock")).doesNotExist();
  }

  @Test
  void aSigintSentToCryoFromElsewhereIsForwardedOnce() throws Exception {
    long cryo = startInATerminal();

    ChildCryo.kill("INT", cryo);
    Poll.until("the command got SIGINT", () -> signals().contains("INT"));
    if (hangupIgnoredHere()) { // cryo inherited it ignored, and keeps it so: nothing to forward
      finish();
      assertThat(signals()).containsExactly("INT");
      return;
    }
    ChildCryo.kill("HUP", cryo);
    Poll.until("the command got SIGHUP", () -> signals().contains("HUP"));

    finish();
    assertThat(signals()).containsExactlyInAnyOrder("INT", "HUP");
  }

  /**
   * Whether this JVM started with SIGHUP ignored ({@code nohup}, some job runners): its children,
   * cryo among them, inherit that, and cryo leaves a signal ignored at its start ignored.
   */
  private static boolean hangupIgnoredHere() throws IOException {
    return Files.readAllLines(Path.of("/proc/self/status")).stream()
        .filter(line -> line.startsWith("SigIgn:"))
        .map(line -> Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16))
        .anyMatch(mask -> (mask & 1L) != 0); // bit 0: signal 1, SIGHUP
  }

  @Test
  void aCtrlCInTheTerminalReachesTheCommandOnceAndIsNotSentAgain() throws Exception {
    startInATerminal();
    Poll.until("cryo watches for signals of the whole group",
        () -> readQuietly(err).contains("watching"));

    OutputStream keyboard = terminal.getOutputStream();
    keyboard.write(3); // Ctrl-C
    keyboard.flush();
    Poll.until("the command got SIGINT", () -> signals().contains("INT"));
    Poll.until("cryo decided", () -> readQuietly(err).contains("SIGINT not forwarded"));

    finish();
    assertThat(signals()).containsExactly("INT");
  }
}
