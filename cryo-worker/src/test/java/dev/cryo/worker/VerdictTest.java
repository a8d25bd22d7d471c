package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commander's verdict "frozen": honoured whenever the user has no rows, never invented. */
class VerdictTest {

  @TempDir Path temp;
  Harness harness;
  Worker worker;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  @Test
  void aVerdictWithNoParcelIsRefusedLoudlyAndNothingIsBornOrAnnounced() throws Exception {
    assertThatThrownBy(() -> worker.call(increment("anna", "c1", "p1", "page").withUserFrozen()))
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.NO_PARCEL);
          assertThat(e.reason().code()).isEqualTo("no_parcel");
          // the commander routes it again within the hold (a drain's parcel may not be written
          // yet), and forgets him only when the hold runs out
          assertThat(e.isRetryable()).isTrue();
          assertThat(e.user()).isEqualTo("anna");
        })
        .hasMessageContaining("no parcel").hasMessageContaining("nothing was created");
    assertThat(worker.registry().userItems().contains("anna")).isFalse();
    assertThat(worker.photo().users()).isEmpty();
    assertThat(harness.told("w1")).as("never born, never adopted").isEmpty();
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();
    assertThat(harness.freezer.folderKeys()).isEmpty();

    // Without the verdict he is simply born: the refusal left nothing in the way.
    assertThat(worker.call(increment("anna", "c1", "p1", "page"))).isEqualTo(1L);
  }

  @Test
  void theVerdictIsHonouredForATenantPresentWithoutRows() {
    Worker other = harness.worker("w2");
    other.call(increment("anna", "c1", "p1", "user"));
    other.call(increment("anna", "c1", "p1", "user"));
    other.freezeUser("anna").join(); // anna's parcel: her user store says 2

    // On w1 anna is a tenant with a call in flight and no rows: her rows were dropped under it.
    RequestSlot inFlight = worker.openRequest(increment("anna", "c9", "p9", "page"));
    assertThat(worker.dropUser("anna")).isTrue();
    assertThat(worker.registry().userItems().contains("anna")).isFalse();

    Object counted = worker.call(increment("anna", "c1", "p1", "user").withUserFrozen());
    assertThat(number(counted)).as("woken from her parcel, not born empty").isEqualTo(3L);
    assertThat(harness.told("w1")).endsWith("user_adopted:anna");
    inFlight.close();
  }
}
