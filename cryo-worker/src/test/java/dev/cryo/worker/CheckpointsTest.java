package dev.cryo.worker;

import static dev.cryo.worker.Harness.get;
import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.ParcelHeader;
import dev.cryo.freezer.ParcelTree;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints ({@link Checkpoints}): a user served since his last is written behind while he stays
 * awake, whole (his connections inside his one parcel), and a worker that never saw him wakes him
 * from it, as after his worker's death; a guest who holds nothing is not written; a stay that
 * ends without the freezer drops its checkpoint; a freeze replaces it; a walk that stopped at
 * {@link Checkpoints#IN_FLIGHT} writes goes on as they end, within its period.
 */
class CheckpointsTest {

  private static final Duration PERIOD = Duration.ofSeconds(1);

  @TempDir
  Path root;

  private Harness harness;
  private Worker worker;
  private Worker other;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(root);
    worker = harness.builder("w1").checkpointEvery(PERIOD).build();
    harness.workers.add(worker);
    other = harness.worker("w2");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private Optional<ParcelHeader> header(String user) {
    try {
      return harness.freezer.userParcelHeader(user);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private void awaitCheckpoint(String user, long written) {
    harness.schedule.advance(PERIOD);
    harness.await("a checkpoint of " + user, () -> worker.checkpointsWritten() >= written
        && header(user).map(h -> ParcelHeader.CHECKPOINT_CAUSE.equals(h.cause())).orElse(false));
  }

  @Test
  void aCheckpointHoldsTheUserWholeAndWakesHimElsewhere() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c2", "p2", "user"));
    awaitCheckpoint("anna", 1);

    Map<?, ?> parcel = (Map<?, ?>) harness.freezer.readUserParcel("anna").orElseThrow();
    assertThat(ParcelTree.innerConnectionParcels(parcel).orElseThrow()).containsOnlyKeys("c1", "c2");
    assertThat(harness.freezer.readConnectionParcel("anna", "c1")).isEmpty(); // inside, not beside

    // As after w1's death: w2 wakes her from the checkpoint.
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user").withUserFrozen())))
        .isEqualTo(2L);
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page")))).isEqualTo(1L);
    assertThat(other.photo().users().get("anna").connectionIds()).containsExactlyInAnyOrder("c1",
        "c2");
    assertThat(harness.freezer.readUserParcel("anna")).as("set aside by the wake").isEmpty();
    assertThat(harness.freezer.readWokenParcel("anna")).as("kept until the stay writes his own")
        .isPresent();
  }

  @Test
  void nothingIsWrittenForAGuestWhoHoldsNothingOrAUserNotServedSince() throws Exception {
    Harness.call(worker, get(null, "c9", "p9", "user")); // a guest who only read
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    awaitCheckpoint("anna", 1);
    assertThat(header("guest_c9")).isEmpty();

    long written = worker.checkpointsWritten();
    harness.schedule.advance(PERIOD);
    harness.schedule.advance(PERIOD);
    assertThat(worker.checkpointsWritten()).as("anna was served nothing since").isEqualTo(written);
  }

  @Test
  void aUserBusyAtTheWalkIsTakenAsHisLastCallCloses() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    RequestSlot inFlight = worker.openRequest(get("anna", "c1", "p1", "user").arrival());
    harness.schedule.advance(PERIOD); // the walk finds her busy
    harness.schedule.advance(PERIOD);
    assertThat(worker.checkpointsWritten()).isZero();

    inFlight.close();
    harness.await("her checkpoint, as her call closed", () -> worker.checkpointsWritten() == 1);
    assertThat(header("anna").orElseThrow().cause()).isEqualTo(ParcelHeader.CHECKPOINT_CAUSE);
  }

  @Test
  void aWalkStoppedAtItsWritesInFlightGoesOnAsTheyEndNotAtTheNextPeriod() throws Exception {
    int users = 3 * Checkpoints.IN_FLIGHT;
    for (int i = 0; i < users; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "user"));
    }
    CountDownLatch held = new CountDownLatch(1);
    for (int thread = 0; thread < 2; thread++) { // both disk threads: the walk's writes wait
      harness.disk.submit(() -> {
        held.await();
        return null;
      });
    }
    harness.schedule.advance(PERIOD); // one walk: it stops at the writes in flight
    held.countDown();
    harness.await(users + " checkpoints in the one period",
        () -> worker.checkpointsWritten() == users);
  }

  /**
   * A 1,000-user kill's finding: a user served a call between his snapshot and its write was never
   * written (each write found him served since), so one clicking faster than the disk had no
   * checkpoint at all. The snapshot, a whole earlier state of his, is written; he stays due.
   */
  @Test
  void aUserServedBetweenHisSnapshotAndItsWriteIsWrittenAndStaysDue() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user")); // 1
    CountDownLatch held = new CountDownLatch(1);
    for (int thread = 0; thread < 2; thread++) { // both disk threads: the write waits
      harness.disk.submit(() -> {
        held.await();
        return null;
      });
    }
    harness.schedule.advance(PERIOD); // the snapshot, at 1
    Harness.call(worker, increment("anna", "c1", "p1", "user")); // 2, before the write
    held.countDown();
    harness.await("her checkpoint, at 1", () -> worker.checkpointsWritten() == 1);
    Map<?, ?> parcel = (Map<?, ?>) harness.freezer.readUserParcel("anna").orElseThrow();
    assertThat(parcel.toString()).as("the snapshot's state").contains("n={value=1}");
    awaitCheckpoint("anna", 2); // still due: the next walk writes 2
  }

  @Test
  void aStayEndingWithoutTheFreezerDropsItsCheckpointAndAFreezeReplacesIt() throws Exception {
    Harness.call(worker, increment("anna", "c0", "p0", "user")); // anna lives here
    Harness.call(worker, increment(null, "c1", "p1", "user")); // a guest who wrote
    Harness.call(worker, increment("bob", "c2", "p2", "user"));
    awaitCheckpoint("guest_c1", 3);
    assertThat(header("bob").orElseThrow().cause()).isEqualTo(ParcelHeader.CHECKPOINT_CAUSE);

    worker.login("c1", "anna").join(); // the guest's stay ends in a login
    harness.await("the guest's checkpoint dropped", () -> header("guest_c1").isEmpty());

    worker.freezeUser("bob").join();
    assertThat(header("bob").orElseThrow().cause()).isEqualTo("freeze");
    assertThat(harness.freezer.readConnectionParcel("bob", "c2")).isPresent();
  }
}
