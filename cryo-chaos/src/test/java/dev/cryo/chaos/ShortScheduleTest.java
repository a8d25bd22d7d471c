package dev.cryo.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.check.AnomalyKind;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.load.WorkloadOptions;
import dev.cryo.chaos.nemesis.Schedule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short schedule CI runs: a real {@code cryo serve} (the cryo command's jar, built before this
 * module) under the workload, with every fault kind that needs no mount once, in a fixed order from
 * a fixed seed, in under three minutes.
 *
 * <p>The harness must work whatever the runtime does: every fault injected, thousands of
 * operations recorded, a verdict given. And the verdict binds on the first promise: with
 * placements fenced by generations, a second live copy ({@code TWO_LIVE_COPIES}) or a placement
 * served by two workers ({@code PLACEMENT_SERVED_TWICE}) fails the test, the verdict its message.
 * The second promise's kinds (a lost write, a failure no fault explains) are reported with the
 * verdict; they bind once hand-overs are written ahead (the issue "Nothing lost"): today a run
 * can still, now and then, forget a user's connection without naming him.
 */
@Tag("chaos")
class ShortScheduleTest {

  static final long SEED = 20261206L;
  static final List<FaultKind> KINDS = List.of(FaultKind.KILL_WORKER, FaultKind.MOVE_STORM,
      FaultKind.RELOAD, FaultKind.PAUSE_WORKER, FaultKind.DRAIN_RESTART,
      FaultKind.KILL_COMMANDER, FaultKind.DRAIN_DURING_RELOAD);

  @Test
  void everyFaultKindIsInjectedAndTheVerdictIsReported(@TempDir Path scratch) throws Exception {
    Path jar = Path.of(System.getProperty("cryo.chaos.jar", "../cryo-cli/target/cryo.jar"));
    assertThat(jar).as("the cryo command's jar, built before this module").isRegularFile();
    List<String> cryo = List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-jar", jar.toAbsolutePath().toString());
    WorkloadOptions workload = new WorkloadOptions(60, 3, Duration.ofMillis(100), 0.25, 0.05,
        2, 0.5, Duration.ofSeconds(15), SEED);
    ChaosRun.Options options = new ChaosRun.Options(cryo, scratch.resolve("out"), SEED,
        Schedule.everyKind(KINDS, Duration.ofSeconds(2)), Duration.ofMinutes(3), workload, 2,
        List.of("--worker-heap", "256m"), 0, Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(10));

    ChaosRun.Outcome outcome = ChaosRun.run(options, System.out);
    System.out.println(outcome.verdict().text());

    assertThat(outcome.faults()).containsExactlyElementsOf(KINDS);
    assertThat(outcome.operations()).as("operations recorded").isGreaterThan(3_000);
    assertThat(outcome.out().resolve("timeline.html")).isRegularFile();
    assertThat(Files.size(outcome.out().resolve("history.jsonl"))).isPositive();
    assertThat(outcome.verdict().count(AnomalyKind.TWO_LIVE_COPIES)
        + outcome.verdict().count(AnomalyKind.PLACEMENT_SERVED_TWICE))
        .as(outcome.verdict().text()).isZero();
  }
}
