package dev.cryo.chaos.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.check.Checker;
import dev.cryo.chaos.check.Verdict;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.History;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness and the checker end to end, against the in-process stand-in of the demo: a correct
 * server passes, and each planted defect is found by the kind of anomaly it makes.
 */
class WorkloadAgainstFakeDemoTest {

  @TempDir
  Path scratch;

  @Test
  void aCorrectServerPassesTheChecker() throws Exception {
    Verdict verdict = run(FakeDemo.Fault.NONE);
    assertThat(verdict.valid()).as(verdict.text()).isTrue();
  }

  @Test
  void aServerThatLeavesACopyBehindAtAMoveIsFoundWithTwoLiveCopies() throws Exception {
    Verdict verdict = run(FakeDemo.Fault.STALE_COPY);
    assertThat(verdict.valid()).isFalse();
    assertThat(verdict.text()).contains("TWO_LIVE_COPIES");
  }

  @Test
  void aServerThatForgetsWritesAtAMoveIsFoundWithLostWrites() throws Exception {
    Verdict verdict = run(FakeDemo.Fault.FORGET);
    assertThat(verdict.valid()).isFalse();
    assertThat(verdict.text()).contains("LOST_WRITE");
  }

  private Verdict run(FakeDemo.Fault fault) throws Exception {
    Path file = scratch.resolve(fault + ".jsonl");
    try (FakeDemo demo = FakeDemo.start(fault);
        History history = History.open(file);
        DemoClient client = new DemoClient(demo.base(), Duration.ofSeconds(10))) {
      Recorder recorder = new Recorder(history);
      Workload workload = new Workload(new WorkloadOptions(20, 3, Duration.ofMillis(5), 0, 0.05,
          20, 0.5, Duration.ofSeconds(10), 7), client, recorder);
      workload.start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (recorder.completed() < 2_000 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      workload.stop();
      workload.finalReads(Duration.ofSeconds(10));
      assertThat(recorder.completed()).isGreaterThanOrEqualTo(2_000);
    }
    List<Entry> entries = History.read(file);
    return Checker.check(entries, List.of(), Duration.ofSeconds(10));
  }
}
