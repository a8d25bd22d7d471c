package dev.cryo.worker;

import static dev.cryo.worker.Harness.get;
import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.ParcelHeader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable calls ({@code Routes.durable}, {@link Checkpoints#durable}): with the periodic
 * checkpoints off, a durable call's reply comes only once a checkpoint holding it is in the
 * freezer, forced with its group; a worker that never saw the user wakes him from it, as after his
 * worker's death; a call of another route writes nothing behind.
 */
class DurableCallsTest {

  @TempDir
  Path root;

  private Harness harness;
  private Worker worker;
  private Worker other;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(root);
    worker = harness.worker("w1"); // no checkpoint walk
    other = harness.worker("w2");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private static TestCall durableIncrement(String user, String connection, String page) {
    return TestCall.userEvent(user, connection, page, "durable-increment")
        .withArguments(Map.of("scope", "user", "key", "n"));
  }

  private Optional<ParcelHeader> header(String user) throws Exception {
    return harness.freezer.userParcelHeader(user);
  }

  @Test
  void aDurableCallIsAnsweredOnceACheckpointHoldingItIsForced() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    assertThat(header("anna")).as("no walk: a plain call writes nothing behind").isEmpty();

    for (long n = 2; n <= 4; n++) {
      assertThat(number(Harness.call(worker, durableIncrement("anna", "c1", "p1")))).isEqualTo(n);
      assertThat(header("anna")).as("in the freezer as the reply comes")
          .hasValueSatisfying(h -> assertThat(h.cause()).isEqualTo(ParcelHeader.CHECKPOINT_CAUSE));
    }
    long[] groups = worker.durableGroups();
    assertThat(groups[1]).as("every durable call's checkpoint was forced").isEqualTo(3);
    assertThat(groups[0]).isBetween(1L, 3L);

    // As after w1's death: w2 wakes her from the last one, which holds every call before it.
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user").withUserFrozen())))
        .isEqualTo(4L);
  }

  /**
   * A login here moves the connection, its pages and what durable calls wrote on them into the
   * identity, and the guest's checkpoint that held them is dropped: the login's reply waits for
   * the identity's checkpoint holding them, forced, so an earlier durable write is never held by
   * nothing on disk.
   */
  @Test
  void aLoginHereIsAnsweredOnceTheIdentitysCheckpointHoldsTheConnection() throws Exception {
    Harness.call(worker, TestCall.userEvent(null, "c1", "p1", "durable-increment")
        .withArguments(Map.of("scope", "page", "key", "n")));
    assertThat(header("guest_c1")).isPresent();

    Harness.call(worker, TestCall.userEvent(null, "c1", "p1", "login")
        .withArguments(Map.of("user", "anna")));
    assertThat(header("anna")).as("the identity's checkpoint, as the login's reply comes")
        .hasValueSatisfying(h -> assertThat(h.cause()).isEqualTo(ParcelHeader.CHECKPOINT_CAUSE));

    // As after w1's death: w2 wakes anna from it, the page's durable write with her.
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page").withUserFrozen())))
        .isEqualTo(1L);
  }

  /**
   * A guest on w1's c1 adds a durable note to p1 while his semaphore is held elsewhere (its
   * checkpoint cannot be written, so the note waits), then logs into anna; the note's reply must
   * come, 200.
   */
  private void guestNoteWaitingWhileHeLogsIntoAnna() throws Exception {
    Harness.call(worker, get(null, "c1", "p1", "page")); // guest_c1 on w1
    assertThat(harness.freezer.tryTakeSemaphore("guest_c1", "somebody else")).isTrue();
    java.util.concurrent.CompletableFuture<Object> note = java.util.concurrent.CompletableFuture
        .supplyAsync(() -> Harness.call(worker, TestCall.userEvent(null, "c1", "p1",
            "durable-increment").withArguments(Map.of("scope", "page", "key", "n"))));
    harness.await("the note waits for its checkpoint", () -> worker.durableCallsWaiting() == 1);

    Harness.call(worker, TestCall.userEvent(null, "c1", "p1", "login")
        .withArguments(Map.of("user", "anna")));
    assertThat(note.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1L);
    harness.freezer.releaseSemaphore("guest_c1", "somebody else");
  }

  /**
   * A soak's defect: a guest's durable note waited for his checkpoint when his connection logged
   * in here; the guest left, and the note was answered 503 {@code not_durable} although what it
   * wrote lived on in the identity. It now waits for the identity's checkpoint, forced.
   */
  @Test
  void aDurableCallWaitingWhenALoginHereTakesItsConnectionIsSettledByTheIdentity()
      throws Exception {
    guestNoteWaitingWhileHeLogsIntoAnna();

    // As after w1's death: w2 wakes anna from her checkpoint, the note's write with her.
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page").withUserFrozen())))
        .isEqualTo(1L);
  }

  /** The same, when the identity lives on another worker: the connection's parcel is forced. */
  @Test
  void aDurableCallWaitingWhenALoginTailTakesItsConnectionIsSettledByItsParcel()
      throws Exception {
    Harness.call(other, increment("anna", "c0", "p0", "user")); // anna lives on w2
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    guestNoteWaitingWhileHeLogsIntoAnna();
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page")))).isEqualTo(1L);
  }

  /**
   * #22's wake window: a wake consumed the parcels it read, so a worker killed before its first
   * checkpoint of the user lost him. What a wake read now stays, the user parcel set aside where
   * no later wake reads it (a wake whose record was lost with its worker still finds nothing, as
   * FenceTest shows), until the commander, told of the worker's death, puts it back: a third
   * worker then wakes him from it.
   */
  @Test
  void whatAWakeReadIsSetAsideForTheCommanderToPutBack() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(number(Harness.call(other, increment("anna", "c1", "p1", "user")
        .withUserFrozen()))).isEqualTo(3L);
    assertThat(harness.freezer.readUserParcel("anna")).as("set aside by the wake").isEmpty();
    assertThat(harness.freezer.readWokenParcel("anna")).isPresent();
    assertThat(harness.freezer.readConnectionParcel("anna", "c1")).isPresent();

    // As after w2's death before any checkpoint of her: put back, a third worker wakes her.
    harness.freezer.restoreWokenParcel("anna");
    Worker third = harness.worker("w3");
    assertThat(number(Harness.call(third, get("anna", "c1", "p1", "user").withUserFrozen())))
        .isEqualTo(2L);
  }

  /** The first checkpoint of the stay replaces what the wake read, its connection files too. */
  @Test
  void theFirstCheckpointOfTheStayDropsWhatTheWakeRead() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(number(Harness.call(other, increment("anna", "c1", "p1", "user")
        .withUserFrozen()))).isEqualTo(2L);

    assertThat(number(Harness.call(other, durableIncrement("anna", "c1", "p1")))).isEqualTo(3L);
    assertThat(header("anna")).hasValueSatisfying(h -> assertThat(h.cause())
        .isEqualTo(ParcelHeader.CHECKPOINT_CAUSE));
    assertThat(harness.freezer.readWokenParcel("anna")).isEmpty();
    assertThat(harness.freezer.readConnectionParcel("anna", "c1")).isEmpty();
  }

  @Test
  void aGuestsFirstDurableCallIsWrittenAndForced() throws Exception {
    Harness.call(worker, get(null, "c9", "p9", "user")); // a guest
    Harness.call(worker, TestCall.userEvent(null, "c9", "p9", "durable-increment")
        .withArguments(Map.of("scope", "user", "key", "n")));
    assertThat(header("guest_c9")).as("he holds something now: written").isPresent();
  }
}
