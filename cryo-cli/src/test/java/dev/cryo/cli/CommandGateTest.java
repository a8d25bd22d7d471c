package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class CommandGateTest {

  @TempDir Path dir;

  @Test
  void theCommandRunsOnlyOnceTheGateOpensAndKeepsTheGatesPid() throws Exception {
    Path said = dir.resolve("said");
    CommandGate gate = CommandGate.close();
    Process process = new ProcessBuilder(gate.wrap(
        List.of("/bin/sh", "-c", "echo $$ > '" + said + "'"))).start();
    try {
      assertThat(process.waitFor(300, TimeUnit.MILLISECONDS))
          .as("the command waits while the gate is closed").isFalse();
      assertThat(said).doesNotExist();

      gate.open();

      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isZero();
      assertThat(Files.readString(said).strip())
          .as("exec keeps the pid the lock record names").isEqualTo(Long.toString(process.pid()));
    } finally {
      process.destroyForcibly();
      gate.openQuietly();
    }
  }

  @Test
  void aGateWhoseParentDiesNeverRunsTheCommand() throws Exception {
    Path ran = dir.resolve("ran");
    Process parent = new ProcessBuilder("sleep", "60").start();
    CommandGate gate = CommandGate.close();
    Process process = new ProcessBuilder(gate.wrap(
        List.of("/bin/sh", "-c", "touch '" + ran + "'"), parent.pid())).start();
    try {
      assertThat(process.waitFor(200, TimeUnit.MILLISECONDS)).isFalse();

      parent.destroyForcibly().waitFor();

      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isEqualTo(CommandGate.ABANDONED);
      gate.open();
      assertThat(ran).as("the command must never run once its cryo is gone").doesNotExist();
    } finally {
      process.destroyForcibly();
      parent.destroyForcibly();
      gate.openQuietly();
    }
  }
}
