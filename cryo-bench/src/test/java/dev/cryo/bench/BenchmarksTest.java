package dev.cryo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchmarksTest {

  @Test
  void shortDefaultsFillOnlyWhatTheCallerLeftOut() {
    assertThat(Benchmarks.withDefaults(new String[] {"-i", "10", "Uncontended"}))
        .containsExactly("-f", "1", "-wi", "3", "-w", "1s", "-r", "1s", "-i", "10", "Uncontended");
  }

  @Test
  void informativeOptionsGetNoDefaults() {
    assertThat(Benchmarks.withDefaults(new String[] {"-l"})).containsExactly("-l");
  }
}
