package dev.cryo.commander;

import static dev.cryo.wire.protocol.AnnouncementKind.DROP_USER;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_CONNECTION;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_USER;
import static dev.cryo.wire.protocol.AnnouncementKind.USER_ADOPTED;
import static dev.cryo.wire.protocol.AnnouncementKind.USER_FROZEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Hold.Ending;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Hold#ending()}: the first release of a hold records what ended it, and nothing after
 * changes it — the fold of {@code user_frozen} (with the move's destination), another fold, his
 * leaving the maps, or the holder's own release. A mover decides its verdict from it.
 */
@Timeout(30)
class HoldEndingTest {

  private final RecordingSink sink = new RecordingSink();
  private final Routing routing = new Routing(sink);
  private final Map<String, long[]> sequences = new HashMap<>();

  private void tell(String worker, AnnouncementKind kind, String user, String key) {
    long sequence = ++sequences.computeIfAbsent(worker, w -> new long[1])[0];
    routing.fold(worker, new Announcement(sequence, kind, user, List.of(key), null));
  }

  private void born(String worker, String user) {
    tell(worker, NEW_USER, user, user);
    tell(worker, NEW_CONNECTION, user, "c_" + user);
  }

  @Test
  void theFoldOfUserFrozenEndsAMovesHoldWithItsDestinationAndTheWakeElsewhereChangesNothing() {
    born("w1", "anna");
    Hold hold = routing.hold("anna", HoldReason.MOVING, "w2").orElseThrow();
    assertThat(hold.ending()).isNull();

    tell("w1", USER_FROZEN, "anna", "anna");
    assertThat(hold.ending()).isEqualTo(new Ending.Froze("w1", "w2"));
    // A request waiting on the hold wakes her on w2 before the mover hears its reply.
    tell("w2", NEW_USER, "anna", "anna");
    tell("w2", USER_ADOPTED, "anna", "anna");
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w2"));
    routing.release(hold); // the mover's own release, after the reply

    assertThat(hold.ending()).isEqualTo(new Ending.Froze("w1", "w2"));
    assertThat(sink.of("move")).hasSize(1);
  }

  @Test
  void theHoldersReleaseFirstEndsItAndALaterFreezeIsNoMove() {
    born("w1", "anna");
    Hold hold = routing.hold("anna", HoldReason.MOVING, "w2").orElseThrow();

    routing.release(hold); // the order failed or was not answered in time
    tell("w1", USER_FROZEN, "anna", "anna"); // the late freeze: frozen, bound for nobody

    assertThat(hold.ending()).isEqualTo(new Ending.ByHolder());
    assertThat(sink.of("move")).isEmpty();
  }

  @Test
  void aDropOrTheDeathOfHisWorkerEndsItAsForgotten() {
    born("w1", "anna");
    born("w1", "bert");
    Hold dropped = routing.hold("anna", HoldReason.MOVING, "w2").orElseThrow();
    Hold lost = routing.hold("bert", HoldReason.MOVING, "w2").orElseThrow();

    tell("w1", DROP_USER, "anna", "anna");
    routing.workerDied("w1", "killed");

    assertThat(dropped.ending()).isEqualTo(new Ending.Forgotten());
    assertThat(lost.ending()).isEqualTo(new Ending.Forgotten());
    assertThat(sink.of("move")).isEmpty();
  }

  @Test
  void aUserFrozenOfOneFrozenAlreadyIsNotAFreeze() {
    born("w1", "anna");
    tell("w1", USER_FROZEN, "anna", "anna");
    Hold hold = routing.hold("anna", HoldReason.MOVING, "w2").orElseThrow();

    tell("w1", USER_FROZEN, "anna", "anna"); // repeated

    assertThat(hold.ending()).isEqualTo(new Ending.Folded("w1", "user_frozen"));
    assertThat(sink.of("move")).isEmpty();
  }
}
