package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes: a tick that takes far longer than the two beats of silence that kill (its walk
 * of a large freezer took 5.9 s at 22,000 frozen users against a kill at 10 s) delays no silence
 * check and no ping, since the heartbeat has a thread of its own: healthy workers live through
 * slow ticks.
 *
 * <p>The slow walk is stood in for by the run's clock, which the tick asks once per round for the
 * status: asked on the tick's thread, it takes four beats to answer.
 */
@Timeout(180)
class SlowTickTest {

  @TempDir
  Path home;

  /** The system clock, four beats slow to answer on the commander's tick thread. */
  private static final class SlowOnTheTick extends Clock {
    private final Duration walk;
    private final AtomicInteger walks = new AtomicInteger();

    SlowOnTheTick(Duration walk) {
      this.walk = walk;
    }

    @Override
    public Instant instant() {
      if (Thread.currentThread().getName().equals("cryo-commander-tick")) {
        try {
          Thread.sleep(walk); // the work being simulated, not a synchronisation
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // the commander closes
        }
        walks.incrementAndGet();
      }
      return Instant.now();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("one zone");
    }
  }

  @Test
  void healthyWorkersLiveThroughTicksLongerThanTheKill() throws Exception {
    Duration beat = Duration.ofMillis(500);
    SlowOnTheTick clock = new SlowOnTheTick(beat.multipliedBy(4));
    try (Commander commander = Commander.start(config(home).workers(2).heartbeat(beat)
        .clock(clock).build())) {
      int slowTicks = 3; // each twice as long as the silence that kills
      eventually(beat.multipliedBy(200),
          () -> FakeWorkers.count(commander, "worker_died") != 0 || clock.walks.get() > slowTicks);

      assertThat(FakeWorkers.events(commander, "worker_died"))
          .as("no healthy worker was killed while the tick walked for four beats a round")
          .isEmpty();
      assertThat(clock.walks.get()).as("slow rounds of the tick").isGreaterThan(slowTicks);
      assertThat(commander.status().workers()).extracting(Status.WorkerStatus::name)
          .containsExactly("main_0001", "main_0002");
    }
  }
}
