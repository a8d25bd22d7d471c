package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo stop --wait} as a process, with this test playing the server of the run (its
 * {@code run.json} names this JVM): the request it publishes withdrawn while the run runs on means
 * the run refused the drain (exit 73, the line naming who stays from {@code drain_refused}); the
 * run marked ended means it stopped (exit 0).
 */
class StopWaitTest {

  @TempDir Path base;

  @Test
  void aWithdrawnRequestIsARefusedDrainNamingWhoStaysAndAnEndedRunIsAStop() throws Exception {
    Path home = base.resolve("run");
    RunDirectory directory = RunDirectory.at(home);
    RunState run = RunState.begin();
    directory.writeRunState(run);

    Files.writeString(home.resolve("events.jsonl"), "{\"n\":1,\"event\":\"drain_refused\","
        + "\"staying\":{\"zoe\":\"an earlier refusal\"},\"what_to_do\":\"-\"}\n");
    ChildCryo refused = ChildCryo.start(base, "stop", "--wait", "--home", home.toString());
    try {
      Poll.until("the request is published", () -> Files.exists(directory.stopRequestPath()));
      Files.writeString(home.resolve("events.jsonl"), "{\"n\":2,\"event\":\"drain_refused\","
          + "\"staying\":{\"anna\":\"worker main_0001 could not freeze him (No space left on"
          + " device)\"},\"what_to_do\":\"free space, then ask again\"}\n",
          java.nio.file.StandardOpenOption.APPEND);
      assertThat(directory.withdrawStopRequest(run.invocationId())).isTrue();
      assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCodes.CANNOT_WRITE);
      assertThat(refused.out()).contains("refused: the run refused the drain and serves on: 1")
          .contains("anna").contains("No space left on device").contains("free space")
          .doesNotContain("zoe");
    } finally {
      refused.close();
    }

    ChildCryo stopped = ChildCryo.start(base, "stop", "--wait", "--home", home.toString());
    try {
      Poll.until("the request is published", () -> Files.exists(directory.stopRequestPath()));
      directory.writeRunState(run.endedAt(OffsetDateTime.now()));
      assertThat(stopped.exitCode()).as(stopped.err()).isEqualTo(ExitCodes.OK);
      assertThat(stopped.out()).contains("stopped: the run " + run.invocationId() + " ended");
    } finally {
      stopped.close();
    }
  }
}
