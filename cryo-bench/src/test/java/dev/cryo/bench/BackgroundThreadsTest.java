package dev.cryo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BackgroundThreadsTest {

  @Test
  void compilersAndCollectorsAreToldApartByTheirKernelNames() {
    assertThat(BackgroundThreads.kind("C2 CompilerThre")).isEqualTo(BackgroundThreads.JIT);
    assertThat(BackgroundThreads.kind("C1 CompilerThre")).isEqualTo(BackgroundThreads.JIT);
    assertThat(BackgroundThreads.kind("GC Thread#1")).isEqualTo(BackgroundThreads.GC);
    assertThat(BackgroundThreads.kind("G1 Refine#0")).isEqualTo(BackgroundThreads.GC);
    assertThat(BackgroundThreads.kind("VM Thread")).isEqualTo(BackgroundThreads.GC);
    assertThat(BackgroundThreads.kind("VM Periodic Tas")).isEqualTo(-1);
    assertThat(BackgroundThreads.kind("cryo-worker-dis")).isEqualTo(-1);
  }

  @Test
  void thisJvmsCompilerAndCollectorThreadsAreFoundAndTheirTimeOnlyGrows() {
    BackgroundThreads threads = BackgroundThreads.of(List.of(ProcessHandle.current().pid()));
    assertThat(threads.counts()[BackgroundThreads.JIT]).isPositive();
    assertThat(threads.counts()[BackgroundThreads.GC]).isPositive();
    long[] before = threads.sample();
    assertThat(before[BackgroundThreads.JIT]).isPositive();
    System.gc();
    long[] after = threads.sample();
    assertThat(after[BackgroundThreads.JIT]).isGreaterThanOrEqualTo(before[BackgroundThreads.JIT]);
    assertThat(after[BackgroundThreads.GC]).isGreaterThan(before[BackgroundThreads.GC]);
  }

  @Test
  void aProcessThatIsNotThereGivesNothingAndZeros() {
    BackgroundThreads threads = BackgroundThreads.of(List.of(Long.MAX_VALUE));
    assertThat(threads.counts()).containsExactly(0, 0);
    assertThat(threads.sample()).containsExactly(0L, 0L);
  }
}
