package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.InProcess.Result;
import dev.cryo.lock.LockRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo lock run} inside the test JVM: parsing, exit codes, and what the command sees on disk.
 * Signals and SIGKILL of cryo are in {@link LockRunProcessTest}.
 */
class LockRunCommandTest {

  @TempDir Path dir;

  private Path lock() {
    return dir.resolve(".lock");
  }

  @Test
  void theCommandsExitStatusIsCryosAndTheLockIsReleased() {
    for (int status : new int[] {0, 1, 7, 42, 255}) {
      Result result = cryo("lock", "run", dir.toString(), "--", "sh", "-c", "exit " + status);
      assertThat(result.exitCode()).isEqualTo(status);
      assertThat(result.err()).isEmpty();
      assertThat(lock()).doesNotExist();
    }
  }

  @Test
  void aCommandKilledByASignalGives128PlusTheSignalAndTheLockIsReleased() {
    Result result = cryo("lock", "run", dir.toString(), "--", "sh", "-c", "kill -KILL $$");
    assertThat(result.exitCode()).isEqualTo(128 + 9);
    assertThat(result.err()).isEmpty();
    assertThat(lock()).doesNotExist();
  }

  @Test
  void whileTheCommandRunsTheRecordNamesItAsCompanionAndHolder() throws Exception {
    Path seen = dir.resolve("seen");
    // The command waits (bounded) until the record names it ($$ is the shell's own pid).
    String script = "i=0; while ! grep -q \"^companion $$ \" .lock; do"
        + " i=$((i+1)); [ $i -gt 2000 ] && exit 9; sleep 0.01; done; cp .lock seen";
    Result result = cryo("lock", "run", "--holder", "nightly import", dir.toString(), "--",
        "sh", "-c", "cd '" + dir + "' && " + script);
    assertThat(result.exitCode()).as(result.err()).isZero();
    LockRecord record = LockRecord.parse(Files.readAllBytes(seen));
    assertThat(record.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(record.holder()).isEqualTo("nightly import");
    assertThat(record.companionPid()).isPositive().isNotEqualTo(record.pid());
    assertThat(record.companionStart()).isNotNegative();
    assertThat(lock()).doesNotExist();
  }

  @Test
  void theDefaultHolderNamesTheCommandBounded() throws Exception {
    Result copied = cryo("lock", "run", dir.toString(), "--", "cp", lock().toString(),
        dir.resolve("seen").toString());
    assertThat(copied.exitCode()).isZero();
    assertThat(LockRecord.parse(Files.readAllBytes(dir.resolve("seen"))).holder())
        .isEqualTo("cryo lock run: cp " + lock() + " " + dir.resolve("seen"));
    String longName = LockRunCommand.defaultHolder(List.of("x".repeat(500)));
    assertThat(longName).hasSize(LockRunCommand.DEFAULT_HOLDER_LENGTH).endsWith("…")
        .startsWith("cryo lock run: xxx");
  }

  @Test
  void aBusyLockGivesExit75AndOneLineNamingTheHolderWithoutRunningTheCommand()
      throws Exception {
    Files.writeString(lock(), "1\n"); // pid 1 is alive: a live holder of the old bare-pid kind
    Path marker = dir.resolve("ran");
    long start = System.nanoTime();
    Result result = cryo("lock", "run", "--wait", "300ms", dir.toString(), "--",
        "touch", marker.toString());
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300);
    assertThat(result.exitCode()).isEqualTo(ExitCodes.BUSY);
    assertThat(result.errLines()).singleElement().asString()
        .startsWith("cryo lock run: busy: lock ").contains("held by pid 1");
    assertThat(marker).doesNotExist();
    assertThat(lock()).hasContent("1\n");
  }

  @Test
  void aDeadHoldersLockIsReclaimedAndTheCommandRuns() throws Exception {
    Records.write(dir, Records.dead("crashed"));
    Result result = cryo("lock", "run", dir.toString(), "--", "true");
    assertThat(result.exitCode()).isZero();
    assertThat(lock()).doesNotExist();
  }

  @Test
  void aMissingCommandGives127AndAnUnexecutableOne126() throws Exception {
    Result missing = cryo("lock", "run", dir.toString(), "--", "no-such-command-for-cryo");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(missing.errLines()).singleElement().asString()
        .startsWith("cryo lock run: command_not_found: cannot run 'no-such-command-for-cryo':")
        .contains("No such file or directory", "the lock was released");
    assertThat(lock()).doesNotExist();

    Path notExecutable = Files.writeString(dir.resolve("script"), "#!/bin/sh\n");
    Result refused = cryo("lock", "run", dir.toString(), "--", notExecutable.toString());
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.CANNOT_EXECUTE);
    assertThat(refused.errLines()).singleElement().asString()
        .contains("command_not_executable", "Permission denied");
    assertThat(lock()).doesNotExist();
  }

  @Test
  void refusalsOfTheLockHaveTheirExitCodesAndReasons() throws Exception {
    Result missing = cryo("lock", "run", dir.resolve("missing").toString(), "--", "true");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(missing.errLines()).singleElement().asString()
        .startsWith("cryo lock run: directory_missing: ");

    Path file = Files.writeString(dir.resolve("file"), "");
    assertThat(cryo("lock", "run", file.toString(), "--", "true").exitCode())
        .isEqualTo(ExitCodes.NO_INPUT);

    Files.createDirectory(lock());
    Result notRegular = cryo("lock", "run", dir.toString(), "--", "true");
    assertThat(notRegular.exitCode()).isEqualTo(ExitCodes.DATA);
    assertThat(notRegular.errLines()).singleElement().asString()
        .startsWith("cryo lock run: not_a_regular_file: ").contains("a directory");
  }

  @Test
  void theCommandLineIsCheckedBeforeAnythingHappens() {
    Result optionAfterDir = cryo("lock", "run", dir.toString(), "--wait", "5s", "--", "true");
    assertThat(optionAfterDir.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(optionAfterDir.err()).contains("options go before DIR");
    assertThat(cryo("lock", "run", dir.toString()).exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(cryo("lock", "run", dir.toString(), "--").exitCode()).isEqualTo(ExitCodes.USAGE);
    Result badWait = cryo("lock", "run", "--wait", "soon", dir.toString(), "--", "true");
    assertThat(badWait.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badWait.err()).contains("'soon' is not a duration");
    assertThat(lock()).doesNotExist();
  }

  @Test
  void theCommandMayCarryOptionsAndTheSeparatorIsOptionalForPlainWords() {
    assertThat(cryo("lock", "run", "-w", "PT1S", dir.toString(), "--", "sh", "-c", "exit 3")
        .exitCode()).isEqualTo(3);
    assertThat(cryo("lock", "run", dir.toString(), "false").exitCode()).isEqualTo(1);
    assertThat(cryo("lock", "run", dir.toString(), "--", "--").exitCode())
        .isEqualTo(ExitCodes.NOT_FOUND);
  }
}
