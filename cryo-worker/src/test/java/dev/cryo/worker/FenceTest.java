package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence ({@link Grant}): a worker makes a user only from a birth or a wake grant, serves him
 * only at the generation it holds him at, and wakes only a parcel at least as new as the one the
 * grant names. A call decided on a stale reading of the maps does nothing.
 */
class FenceTest {

  @TempDir Path temp;
  Harness harness;
  Worker w1;
  Worker w2;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    w1 = harness.worker("w1");
    w2 = harness.worker("w2");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  /**
   * The review's finding 1, at the worker: a call routed on a stale reading (he lived on w1 at 5)
   * reaches w1 after his move froze him there, while his wake at 6 lives on w2. Before the fence,
   * the call without a verdict made him anew on w1: two live copies, the second empty.
   */
  @Test
  void aCallOnAStaleReadingReachesAWorkerThatFrozeHimAndMakesNobody() {
    assertThat(Harness.call(w1, increment("anna", "c1", "p1", "user").withGrant(Grant.birth(5))))
        .isEqualTo(1L);
    assertThat(Harness.call(w1, increment("anna", "c1", "p1", "user").withGrant(Grant.live(5))))
        .isEqualTo(2L);
    assertThat(w1.freezeUser("anna", 5L).join()).isEqualTo(FreezeOutcome.FROZEN);
    harness.heard("w1").clear();

    assertThatThrownBy(() -> Harness.call(w1, increment("anna", "c1", "p1", "user")
        .withGrant(Grant.live(5))))
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.STALE_GRANT);
          assertThat(e.isRetryable()).isTrue();
        })
        .hasMessageContaining("not on worker w1").hasMessageContaining("live@5")
        .hasMessageContaining("nothing was served or created");
    assertThat(w1.registry().userItems().contains("anna")).isFalse();
    assertThat(harness.told("w1")).as("nobody born on w1").isEmpty();

    assertThat(Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.wake(6, 5))))
        .isEqualTo(3L);
    assertThat(w1.photo().users()).doesNotContainKey("anna");
    assertThat(w2.photo().users().get("anna").generation()).isEqualTo(6);
  }

  @Test
  void aGrantOfAnotherGenerationIsRefusedByTheWorkerThatHoldsHim() {
    Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.birth(6)));

    for (Grant stale : new Grant[] {Grant.live(5), Grant.birth(5), Grant.wake(5, 4),
        Grant.live(7)}) {
      assertThatThrownBy(() -> Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(stale)))
          .as(stale.toString())
          .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
              .isEqualTo(RefusalReason.STALE_GRANT))
          .hasMessageContaining("holds 'anna' at generation 6");
    }
    assertThat(Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.live(6))))
        .isEqualTo(2L);
  }

  @Test
  void ordersForAnotherGenerationTouchNothing() {
    Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.birth(6)));

    assertThat(w2.freezeUser("anna", 5L).join()).isEqualTo(FreezeOutcome.NOT_HOSTED);
    assertThat(w2.dropUser("anna", 5)).isFalse();
    assertThat(w2.registry().userItems().contains("anna")).isTrue();

    assertThat(w2.dropUser("anna", 6)).isTrue();
    assertThat(w2.registry().userItems().contains("anna")).isFalse();
  }

  @Test
  void aWakeReadsOnlyAParcelAsNewAsTheGrantNamesAndLeavesResidueAloneThenSetsItAside() throws Exception {
    Harness.call(w1, increment("anna", "c1", "p1", "user").withGrant(Grant.birth(5)));
    w1.freezeUser("anna", 5L).join();
    Path parcel = harness.freezer.folder("anna").resolve("user.parcel");
    byte[] before = Files.readAllBytes(parcel);

    assertThatThrownBy(() -> Harness.call(w2, increment("anna", "c1", "p1", "user")
        .withGrant(Grant.wake(8, 7))))
        .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
            .isEqualTo(RefusalReason.NO_PARCEL))
        .hasMessageContaining("generation 5").hasMessageContaining("residue");
    assertThat(Files.readAllBytes(parcel)).isEqualTo(before);
    assertThat(w2.registry().userItems().contains("anna")).isFalse();
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();

    // The wake the maps name finds him, and sets aside what it read.
    assertThat(Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.wake(8, 5))))
        .isEqualTo(2L);
    assertThat(harness.freezer.readUserParcel("anna")).isEmpty();
    assertThat(harness.freezer.readWokenParcel("anna")).isPresent();
  }

  /**
   * The review's finding 2, and what came of it: a wake's record can be lost (the commander's
   * journal writes in batches; it was killed before the batch), and its replay then says he is
   * frozen at the generation of his last freeze. His worker, alive, freezes him anew when it loses
   * its commander, and the next start waits for that (CommanderDeathTest). When the worker died
   * with it, the wake had set his user parcel aside (only the commander that knew of the wake puts
   * it back): the older state is not brought back as if it were him (acknowledged writes lost without a word, and a stay merged into another identity since
   * resurrected); the wake is refused {@code no_parcel}, nothing is created, and the commander
   * forgets him, named lost.
   */
  @Test
  void aWakeWhoseRecordWasLostWithItsWorkerFindsNoOlderStateToComeBackFrom() {
    Harness.call(w1, increment("anna", "c1", "p1", "user").withGrant(Grant.birth(5)));
    Harness.call(w1, increment("anna", "c1", "p1", "user").withGrant(Grant.live(5)));
    w1.freezeUser("anna", 5L).join();
    assertThat(Harness.call(w2, increment("anna", "c1", "p1", "user").withGrant(Grant.wake(6, 5))))
        .isEqualTo(3L);
    w2.close(); // the worker goes with its commander: his stay at 6 is lost

    Worker w3 = harness.worker("w3");
    assertThatThrownBy(() -> Harness.call(w3, increment("anna", "c1", "p1", "user")
        .withGrant(Grant.wake(7, 5))))
        .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
            .isEqualTo(RefusalReason.NO_PARCEL));
    assertThat(w3.registry().userItems().contains("anna")).isFalse();
  }
}
