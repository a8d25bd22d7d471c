package dev.cryo.bench.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Each operation of the worker benchmark once, in the build: it works and checks itself (no timing). */
class WorkerBenchmarkTest {

  @Test
  void everyOperationRunsOnceAndChecksWhatItGot() throws Exception {
    WorkerBenchmark benchmark = new WorkerBenchmark();
    benchmark.setUp();
    try {
      assertThat(((Number) benchmark.callThroughWorker()).longValue()).isEqualTo(1L);
      assertThat(((Number) benchmark.sameWorkOnTheRegistry()).longValue()).isEqualTo(2L);
      assertThat(((Number) benchmark.handOver()).longValue()).isEqualTo(3L);
      assertThat(benchmark.burstOfFifty()).isEqualTo(50);
      assertThat(((Number) benchmark.handOver()).longValue()).isEqualTo(54L);
    } finally {
      benchmark.tearDown();
    }
  }
}
