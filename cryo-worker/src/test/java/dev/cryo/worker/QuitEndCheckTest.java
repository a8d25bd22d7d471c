package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.Freezer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quit's end check ({@code Departures.checkQuitFinished}) runs after every departure but walks
 * the tenant map only a few times a quit, not once per departure (which was quadratic in the
 * users), and still ends the quit only when nobody holds it: stragglers anywhere in the map's
 * order keep it open until they are cut.
 */
class QuitEndCheckTest {

  private static final int USERS = 120;
  /** Generous: the freezes are real files on a machine that may be loaded. */
  private static final long PATIENCE_SECONDS = 120;

  @TempDir Path temp;
  private Harness harness;
  private Freezer into;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    into = new Freezer(temp.resolve("reboot-temp"));
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private Worker worker(String name) {
    Worker worker = harness.builder(name).quitDeparturesAtOnce(4).build();
    harness.workers.add(worker);
    for (int i = 0; i < USERS; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "user"));
    }
    return worker;
  }

  @Test
  void aQuitOfManyUsersWalksTheTenantMapAFewTimesNotOncePerDeparture() throws Exception {
    Worker worker = worker("w-walks");

    CompletableFuture<QuitReport> report = worker.quit(into, Duration.ZERO, Duration.ofSeconds(5));
    await("the quit's report", report::isDone);

    assertThat(report.join().frozen()).isEqualTo(USERS);
    assertThat(report.join().failed()).isZero();
    assertThat(into.folderKeys()).hasSize(USERS);
    // one walk per departure would be at least USERS; a holdout looked at first makes a handful
    assertThat(worker.quitWalks()).as("walks of the tenant map").isBetween(1, USERS / 5);
  }

  @Test
  void stragglersAnywhereInTheMapKeepTheQuitOpenUntilTheyAreCut() throws Exception {
    Worker worker = worker("w-stragglers");
    List<RequestSlot> stuck = new ArrayList<>();
    Set<String> stragglers = new HashSet<>();
    for (int i = 0; i < USERS; i += USERS / 4) { // four of them, spread over the names
      stuck.add(worker.openRequest(increment("u" + i, "c" + i, "p" + i, "page").arrival()));
      stragglers.add("u" + i);
    }

    CompletableFuture<QuitReport> report = worker.quit(into, Duration.ZERO, Duration.ofSeconds(5));
    await("all but the stragglers gone",
        () -> worker.registry().userItems().keys().equals(stragglers));
    for (int turn = 0; turn < 50; turn++) { // whatever runs now must not end the quit
      harness.schedule.runDue();
    }
    assertThat(report).as("the quit, with four users mid-call").isNotDone();
    assertThat(worker.isFinished()).isFalse();

    harness.schedule.advance(Duration.ofSeconds(5)); // the grace runs out: they are cut
    await("the quit's report", report::isDone);
    assertThat(report.join().frozen()).isEqualTo(USERS);
    assertThat(report.join().cut()).isEqualTo(stragglers.size());
    assertThat(into.folderKeys()).hasSize(USERS);
    stuck.forEach(RequestSlot::close);
  }

  /** As {@link Harness#await}, with a bound fit for many real freezes on a loaded machine. */
  private void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
    while (true) {
      harness.schedule.runDue();
      if (condition.getAsBoolean()) {
        return;
      }
      assertThat(System.nanoTime() < deadline).as("still waiting for: " + what).isTrue();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
