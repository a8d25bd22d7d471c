package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.WorkerCommand;
import dev.cryo.wire.protocol.SpawnPayload;
import java.util.List;
import org.junit.jupiter.api.Test;

class MoveStepsTest {

  private static final SpawnPayload SPAWN = new SpawnPayload("main_0001", "main", "/tmp/w.sock",
      "/tmp/freezer", "dev.cryo.demo.DemoApplication", null, 64L << 20, null);

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

  @Test
  void theSlowestOnePercentAreCountedBesideTheCompilersAndTheCollectors() {
    List<long[]> timed = new java.util.ArrayList<>();
    for (int i = 0; i < 297; i++) {
      timed.add(new long[] {i * 10_000_000L, i * 10_000_000L + 1_000_000L, 0, 0});
    }
    timed.add(new long[] {0, 9_000_000L, 4_000_000L, 0});
    timed.add(new long[] {0, 8_000_000L, 0, 2_000_000L});
    timed.add(new long[] {0, 7_000_000L, 2_000_000L, 0});

    assertThat(MoveSteps.beside(timed)).isEqualTo("the JVMs' compilers / collectors beside the"
        + " direct moves, us per move: all 300 moves 20 / 7; slowest 3 (from 7.00 ms) 2000 / 667,"
        + " of which 2 beside >= 1 ms of the compilers, 1 beside >= 1 ms of the collectors");
  }
}
