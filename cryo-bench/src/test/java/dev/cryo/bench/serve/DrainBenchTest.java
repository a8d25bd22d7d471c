package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.bench.ThreadTimes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DrainBenchTest {

  @Test
  void freezesAreCountedInTheSecondOfTheDrainTheyFellIn() {
    Instant begun = Instant.parse("2026-12-02T01:00:00Z");
    assertThat(DrainBench.perSecond(begun, List.of(begun.plusMillis(100), begun.plusMillis(999),
        begun.plusMillis(2_300), begun.plusMillis(2_301))))
        .isEqualTo("  freezes folded per second of the drain: 2 0 2");
  }

  @Test
  void processorTimeNamesEachBusyGroupAndLeavesOutTheIdleAndTheUnread() {
    long s = 1_000_000_000L;
    Map<String, long[]> before = Map.of("disk-#", new long[] {s, 0, 0, 0, 0},
        "idle", new long[] {0, 0, 0, 0, 0});
    Map<String, long[]> after = Map.of("disk-#", new long[] {4 * s, s, 9, 9, 2 * s},
        "idle", new long[] {1, 0, 0, 0, 0}, "C2 CompilerThre", new long[] {s, 0, 0, 0, 0});
    String out = DrainBench.processorTime(List.of("commander", "worker a", "worker b"),
        List.of(before, before, Map.of()), List.of(after, Map.of(), Map.of()));
    assertThat(out).contains("commander: 4.00 / 2.00 / 1.00")
        .containsPattern("disk-# +3\\.00 / +2\\.00 / +1\\.00")
        .containsPattern("C2 CompilerThre +1\\.00 / +0\\.00 / +0\\.00")
        .doesNotContain("idle")
        .contains("worker a: not read").contains("worker b: not read");
    assertThat(ThreadTimes.SYSTEM).isEqualTo(4);
  }

  @Test
  void aFreshRunDirectoryIsANewOneInTheAreaEachRunAndTmpIsTheAreaItself(@TempDir Path area)
      throws Exception {
    Path first = DrainBench.home(area, "fresh");
    Path second = DrainBench.home(area, "fresh");
    assertThat(first.getParent()).isEqualTo(area);
    assertThat(second.getParent()).isEqualTo(area);
    assertThat(first).as("a name drawn anew each run, so ext4 starts its search elsewhere")
        .isNotEqualTo(second);
    assertThat(Files.isDirectory(first)).isTrue();
    assertThat(DrainBench.home(area, "tmp")).isEqualTo(area);
    assertThatThrownBy(() -> DrainBench.home(area, "elsewhere"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fresh or tmp");
  }
}
