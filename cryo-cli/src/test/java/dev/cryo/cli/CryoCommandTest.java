package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.InProcess.Result;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parsing, help, version and the way failures are printed, for the whole command tree. */
class CryoCommandTest {

  @TempDir Path dir;

  @Test
  void helpNamesTheCommandsTheExitCodesAndExamples() {
    Result help = cryo("--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("Usage: cryo", "lock", "Exit codes:", "75",
        "cryo lock run --wait 10s");
    assertThat(help.err()).isEmpty();
  }

  @Test
  void versionNamesTheBuildAndTheJava() {
    Result version = cryo("--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.out()).startsWith("cryo 0.").contains("Java " + Runtime.version().feature());
    assertThat(version.out()).doesNotContain("unknown", "${");
  }

  @Test
  void lockHelpListsItsThreeCommands() {
    Result help = cryo("lock", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("run ", "status ", "break ", "DIR/.lock", "Examples:");
  }

  @Test
  void everyCommandHasHelpWithExitCodes() {
    for (String command : new String[] {"run", "status", "break"}) {
      Result help = cryo("lock", command, "--help");
      assertThat(help.exitCode()).as(command).isZero();
      assertThat(help.out()).as(command).contains("Usage: cryo lock " + command, "Exit codes:",
          "Examples:");
    }
    assertThat(cryo("lock", "run", "--help").out()).contains("SIGKILL", "127", "128+S");
    assertThat(cryo("lock", "status", "--help").out()).contains("\"lockFile\"", "\"companion\"",
        "not_regular");
  }

  @Test
  void withoutACommandTheUsageGoesToStderrWithExit64() {
    Result bare = cryo();
    assertThat(bare.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(bare.out()).isEmpty();
    assertThat(bare.err()).contains("Usage: cryo");
    Result lock = cryo("lock");
    assertThat(lock.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(lock.err()).contains("Usage: cryo lock");
  }

  @Test
  void unknownCommandsAndOptionsAreUsageErrors() {
    Result unknown = cryo("frobnicate");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknown.err()).startsWith("cryo: usage: Unmatched argument")
        .contains("Try 'cryo --help'");
    Result option = cryo("lock", "status", "--jason", dir.toString());
    assertThat(option.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(option.err()).startsWith("cryo lock status: usage: Unknown option: '--jason'");
    Result missing = cryo("lock", "status");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("Missing required parameter: 'DIR'");
  }

  @Test
  void aRefusalIsOneLineWithItsReasonCodeAndNoStackTrace() {
    Result refused = cryo("lock", "status", dir.resolve("nope").toString());
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(refused.out()).isEmpty();
    assertThat(refused.errLines()).hasSize(1);
    assertThat(refused.err()).startsWith("cryo lock status: directory_missing: the lock directory")
        .doesNotContain("Exception", "\tat ");
  }

  @Test
  void verbosePrintsTheStackTraceWhereverItIsWritten() {
    for (String[] args : new String[][] {
        {"--verbose", "lock", "status", dir.resolve("nope").toString()},
        {"lock", "status", "--verbose", dir.resolve("nope").toString()}}) {
      Result verbose = cryo(args);
      assertThat(verbose.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
      assertThat(verbose.err()).contains("directory_missing", "NoSuchFileException", "\tat ");
    }
  }
}
