package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The worker's own schedule ({@link Schedule#system()}). */
class ScheduleTest {

  @Test
  void aTaskRunsOnceAfterItsDelay() throws Exception {
    Schedule schedule = Schedule.system();
    try {
      CountDownLatch ran = new CountDownLatch(1);
      schedule.schedule(Duration.ofMillis(1), ran::countDown);
      assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      schedule.shutdown();
    }
  }

  /**
   * A soak's defect: a quit whose worker finished meanwhile (it held nobody, and a concurrent check
   * ended it) scheduled its gate on the stopped schedule, and the rejection failed the commander's
   * quit call ("internal"). A task scheduled after the shutdown is dropped, never run.
   */
  @Test
  void aTaskScheduledAfterTheShutdownIsDroppedNotRefused() throws Exception {
    Schedule schedule = Schedule.system();
    schedule.shutdown();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatCode(() -> schedule.schedule(Duration.ZERO, () -> ran.set(true)).cancel())
        .doesNotThrowAnyException();
    assertThat(ran).isFalse();
  }
}
