package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.WorkerCommand;
import dev.cryo.wire.protocol.SpawnPayload;
import java.util.List;
import org.junit.jupiter.api.Test;

class MoveStepsTest {

  private static final SpawnPayload SPAWN = new SpawnPayload("main_0001", "main", "/tmp/w.sock",
      "/tmp/freezer", "dev.cryo.demo.DemoApplication", null, 64L << 20);

  @Test
  void theWorkersOptionsGoBeforeTheClassPathAfterTheCommandersOwn() {
    List<String> standard = WorkerCommand.defaultJvm().command(SPAWN);
    List<String> command = MoveSteps.workerCommand(
        "  -XX:+UseSerialGC   -Xlog:gc:file=/tmp/w-%p.log ").command(SPAWN);

    int cp = command.indexOf("-cp");
    assertThat(command.subList(cp - 2, cp))
        .containsExactly("-XX:+UseSerialGC", "-Xlog:gc:file=/tmp/w-%p.log");
    assertThat(command.subList(0, cp - 2)).isEqualTo(standard.subList(0, standard.indexOf("-cp")));
    assertThat(command.subList(cp, command.size()))
        .isEqualTo(standard.subList(standard.indexOf("-cp"), standard.size()));
  }

  @Test
  void noOptionsLeaveTheWorkersAsTheCommanderStartsThem() {
    assertThat(MoveSteps.workerCommand(" ").command(SPAWN))
        .isEqualTo(WorkerCommand.defaultJvm().command(SPAWN));
    assertThat(MoveSteps.workerCommand("").command(SPAWN))
        .isEqualTo(WorkerCommand.defaultJvm().command(SPAWN));
  }
}
