package dev.cryo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadTimesTest {

  @Test
  void theNumbersOfAPoolsThreadsAreFoldedIntoOneGroup() {
    assertThat(ThreadTimes.group("C2 CompilerThre")).isEqualTo("C2 CompilerThre");
    assertThat(ThreadTimes.group("G1 Refine#0")).isEqualTo("G1 Refine##");
    assertThat(ThreadTimes.group("GC Thread#0")).isEqualTo("GC Thread##");
    assertThat(ThreadTimes.group("ForkJoinPool-12")).isEqualTo("ForkJoinPool-#");
    assertThat(ThreadTimes.group("wire-main_0001-")).isEqualTo("wire-main_#-");
  }

  @Test
  void theKernelsShareIsReadPastACommandWithSpacesAndParentheses() {
    String stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 19 0 0 20 0 1 0 99";
    assertThat(ThreadTimes.systemTicks(stat)).isEqualTo(19);
  }

  @Test
  void aThreadThatSpinsShowsItsProcessorTimeInItsGroup() throws Exception {
    long pid = ProcessHandle.current().pid();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stop = new CountDownLatch(1);
    Thread spinner = Thread.ofPlatform().name("spinner-7").start(() -> {
      started.countDown();
      java.lang.management.ThreadMXBean cpu =
          java.lang.management.ManagementFactory.getThreadMXBean();
      long until = cpu.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(30);
      long x = 0;
      while (cpu.getCurrentThreadCpuTime() < until) {
        x += System.identityHashCode(this);
      }
      if (x == 42) {
        System.out.print("");
      }
      try {
        stop.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    started.await();
    Map<String, long[]> before = ThreadTimes.of(pid);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long ran = 0;
    while (ran < TimeUnit.MILLISECONDS.toNanos(10) && System.nanoTime() < deadline) {
      Map<String, long[]> now = ThreadTimes.of(pid);
      assertThat(now).containsKey("spinner-#");
      ran = now.get("spinner-#")[ThreadTimes.RUN];
      Thread.onSpinWait();
    }
    stop.countDown();
    spinner.join();
    assertThat(ran).as("the spinner's 30 ms on a processor, read from /proc")
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    assertThat(ThreadTimes.of(pid).values()).as("run, wait, two kinds of switches, kernel time")
        .isNotEmpty().allSatisfy(counts -> assertThat(counts).hasSize(5));
    assertThat(ThreadTimes.minus(Map.of("a", new long[] {5, 6, 7, 8}),
        Map.of("a", new long[] {1, 1, 1, 1}, "gone", new long[] {1, 1, 1, 1})))
        .containsOnlyKeys("a").hasEntrySatisfying("a",
            counts -> assertThat(counts).containsExactly(4, 5, 6, 7));
  }

  @Test
  void theTotalClampsEachCountAndTheLargestGroupsComeFirst() {
    Map<String, long[]> groups = new java.util.TreeMap<>(Map.of(
        "a", new long[] {10, 1, 2, 3, 4}, "b", new long[] {30, -5, 1, 0, 0},
        "c", new long[] {2, 0, 0, 0, 0}));
    assertThat(ThreadTimes.total(groups)).containsExactly(42, 1, 3, 3, 4);
    assertThat(ThreadTimes.largest(groups, 10)).extracting(Map.Entry::getKey)
        .containsExactly("b", "a");
  }
}
