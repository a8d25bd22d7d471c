package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The heap valve, driven by a memory pressure the test reports; and the JVM's own pressure. */
class HeapValveTest {

  /** A pressure the test reports: each {@link #collectedOver} is a collection past the line. */
  static final class ReportedPressure implements MemoryPressure {
    final AtomicLong count = new AtomicLong();
    volatile Runnable action = () -> { };

    @Override
    public long overCount() {
      return count.get();
    }

    @Override
    public void listen(Runnable value) {
      action = value;
    }

    void collectedOver() {
      count.incrementAndGet();
      action.run();
    }
  }

  @TempDir Path temp;
  Harness harness;
  ReportedPressure pressure = new ReportedPressure();
  Worker worker;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.builder("w1").heapValve(pressure).build();
    harness.workers.add(worker);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private List<String> hosted() {
    return worker.registry().userItems().keys().stream().sorted().toList();
  }

  @Test
  void eachCollectionPastTheLineFreezesATenthOfTheUsersLeastRecentlyServedFirst() throws Exception {
    // u00 served first ... u19 last; then u03 served again, the most recent of all
    IntStream.range(0, 20).forEach(i -> {
      Harness.call(worker, increment(String.format("u%02d", i), "c" + i, "p" + i, "user"));
      harness.schedule.advance(Duration.ofSeconds(1));
    });
    Harness.call(worker, increment("u03", "c3", "p3", "user"));

    pressure.collectedOver();

    harness.await("the first batch frozen", () -> hosted().size() == 18);
    assertThat(hosted()).doesNotContain("u00", "u01").contains("u02", "u03");

    pressure.collectedOver(); // still past the line after the next collection: 18 / 10 = 1
    harness.await("the second batch frozen", () -> hosted().size() == 17);
    assertThat(hosted()).doesNotContain("u02").contains("u03", "u04");

    pressure.action.run(); // a notification with no collection past the line since: nothing
    assertThat(hosted()).hasSize(17);
    assertThat(harness.freezer.userParcelHeader("u00").orElseThrow().cause()).isEqualTo("heap");
  }

  @Test
  void aCollectionPastTheLineDuringABatchTakesTheNextBatchOnceItEnds() throws Exception {
    RequestSlot busy = worker.openRequest(increment("u0", "c0", "p0", "user").arrival());
    IntStream.range(1, 3).forEach(i -> { // u0's call (in flight) is the least recent
      harness.schedule.advance(Duration.ofSeconds(1));
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "user"));
    });

    pressure.collectedOver(); // u0 is chosen, but his call is in flight: the batch waits for it
    pressure.collectedOver(); // counted; no second batch while the first runs
    assertThat(hosted()).containsExactly("u0", "u1", "u2");
    busy.close();

    harness.await("u0 frozen, then u1 by the next batch", () -> hosted().equals(List.of("u2")));
    pressure.action.run(); // no collection past the line since: nothing more
    assertThat(hosted()).containsExactly("u2");
  }

  @Test
  void theJvmsOwnPressureCountsAndNotifiesACollectionPastItsLine() throws Exception {
    CollectionPressure jvm = CollectionPressure.install(1e-9).orElseThrow(); // any usage is over
    CountDownLatch heard = new CountDownLatch(1);
    jvm.listen(heard::countDown);
    long before = jvm.overCount();
    System.gc();
    assertThat(heard.await(30, TimeUnit.SECONDS)).as("a notification after the collection")
        .isTrue();
    assertThat(jvm.overCount()).isGreaterThan(before);
  }
}
