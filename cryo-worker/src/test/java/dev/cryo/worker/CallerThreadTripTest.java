package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.Freezer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk trip its caller only waits for — a wake pulled by a call, a freeze ordered by
 * {@link Worker#freezeUserInline} while the user has no call in flight (the commander's order over
 * the wire) — makes its first try on the caller's thread, not on the disk executor;
 * its retries still go to the disk executor through the schedule. The workers here get a disk
 * executor that keeps its tasks and never runs them unless the test says so: on a worker that sent
 * those trips to its disk executor, the freeze and the wake below would never end.
 */
class CallerThreadTripTest {

  @TempDir Path temp;
  Harness harness;
  /** The tasks handed to the disk executor, run only by {@link #runParked()}. */
  final List<Runnable> parked = new CopyOnWriteArrayList<>();
  final Executor keeping = parked::add;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private Worker worker(String name) {
    Worker worker = harness.builder(name).diskExecutor(keeping).build();
    harness.workers.add(worker);
    return worker;
  }

  @Test
  void aFreezeOrderAndTheWakeItLeadsToRunOnTheCallersThreads() throws Exception {
    Worker from = worker("w1");
    Worker to = worker("w2");
    from.call(increment("anna", "c1", "p1", "user"));
    from.call(increment("anna", "c1", "p1", "user"));

    CompletableFuture<FreezeOutcome> frozen = from.freezeUserInline("anna");
    assertThat(frozen.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(harness.told("w1")).contains("user_frozen:anna");
    assertThat(harness.freezer.semaphoreHolder("anna")).as("given back").isEmpty();

    Object counted = CompletableFuture.supplyAsync(
        () -> to.call(increment("anna", "c1", "p1", "user").withUserFrozen()))
        .get(10, TimeUnit.SECONDS);
    assertThat(number(counted)).as("woken from her parcel").isEqualTo(3L);
    assertThat(harness.told("w2")).endsWith("user_adopted:anna");
    assertThat(harness.freezer.semaphoreHolder("anna")).as("given back").isEmpty();
    assertThat(parked).as("nothing was handed to a disk thread").isEmpty();
  }

  @Test
  void aBusySemaphoreSendsTheNextTryToTheDiskExecutorThroughTheSchedule() throws Exception {
    Worker from = worker("w1");
    from.call(increment("anna", "c1", "p1", "user"));
    Freezer freezer = harness.freezer;
    assertThat(freezer.tryTakeSemaphore("anna", "someone else")).isTrue();

    CompletableFuture<FreezeOutcome> frozen = from.freezeUserInline("anna");
    assertThat(frozen).as("the first try found the semaphore held").isNotDone();
    assertThat(parked).isEmpty();
    harness.schedule.advance(Duration.ofMillis(50)); // the retry interval: the retry is due
    assertThat(parked).as("the retry went to the disk executor").hasSize(1);

    freezer.releaseSemaphore("anna", "someone else");
    runParked();
    assertThat(frozen.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(harness.told("w1")).contains("user_frozen:anna");
  }

  @Test
  void aFreezeDeferredToTheLastCallGoesToTheDiskExecutor() throws Exception {
    Worker from = worker("w1");
    from.call(increment("anna", "c1", "p1", "user"));
    RequestSlot inFlight = from.openRequest(increment("anna", "c1", "p1", "user"));

    CompletableFuture<FreezeOutcome> frozen = from.freezeUserInline("anna");
    inFlight.close(); // the call's own thread must not do the freeze before its reply
    assertThat(frozen).isNotDone();
    assertThat(parked).hasSize(1);
    runParked();
    assertThat(frozen.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.FROZEN);
  }

  @Test
  void aWorkerWhoseDiskWorkStoppedRefusesTheFreezeOnTheCallersThreadToo() throws Exception {
    Worker own = Worker.builder("w1", harness.freezer).group("g") // its own disk executor,
        .application(new ExampleApplication()).schedule(harness.schedule).build(); // shut by close
    own.call(increment("anna", "c1", "p1", "user"));
    own.close();

    CompletableFuture<FreezeOutcome> frozen = own.freezeUserInline("anna");
    assertThat(frozen).failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(WorkerException.Reason.WORKER_FINISHED));
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();
    assertThat(harness.freezer.folderKeys()).as("nothing was written").isEmpty();
  }

  private void runParked() {
    while (!parked.isEmpty()) {
      parked.remove(0).run();
    }
  }
}
