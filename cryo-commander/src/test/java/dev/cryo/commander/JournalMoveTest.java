package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal and a move: a batch does not force the parcels of a user whose wake is on its way
 * (frozen with a destination), it waits for that wake, boundedly; a user frozen with no wake on its
 * way is forced at the next batch as before. The barrier here records what it is asked.
 */
class JournalMoveTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  /** The test's directory claimed as a run's home, released after the test. */
  private RunHome home() throws IOException {
    return homes.claim(directory);
  }

  private final Map<String, Long> sequences = new HashMap<>();

  private void fold(Routing routing, String worker, AnnouncementKind kind, String user,
      String... keys) {
    long sequence = sequences.merge(worker, 1L, Long::sum);
    routing.fold(worker, new Announcement(sequence, kind, user, List.of(keys), null));
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Anna on w1, moved: held for w2, frozen on w1 (the fold releases the hold with w2 as her way). */
  private void freezeForAMove(Routing routing) {
    fold(routing, "w1", AnnouncementKind.NEW_CONNECTION, "anna", "c1");
    assertThat(routing.hold("anna", HoldReason.MOVING, "w2")).isPresent();
    fold(routing, "w1", AnnouncementKind.USER_FROZEN, "anna");
    assertThat(routing.locate("anna")).isInstanceOfSatisfying(Location.Frozen.class,
        frozen -> assertThat(frozen.destination()).isEqualTo("w2"));
  }

  @Test
  void aMovingUserIsNotForcedWhileHisWakeIsOnItsWay() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    Journal journal = Journal.start(home(), routing, frozen -> asked.add(Set.copyOf(frozen)),
        Duration.ofSeconds(60));
    try {
      freezeForAMove(routing);
      // not a synchronisation: a window in which several of the journal's batches (every 50 ms)
      // come while she is on her way, and none may force her
      Thread.sleep(10 * Journal.BATCH.toMillis());
      assertThat(asked).as("a batch forced a user whose wake was on its way").isEmpty();

      fold(routing, "w2", AnnouncementKind.USER_ADOPTED, "anna"); // the wake on w2
      await(() -> JournalMoveTest.awake(journal).contains("anna"), "anna awake on disk");
      journal.flush();
      assertThat(asked).isEmpty();
    } finally {
      journal.close(false);
    }
  }

  @Test
  void aFreezeWithNoWakeOnItsWayIsForcedAtTheNextBatch() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    Journal journal = Journal.start(home(), routing, frozen -> asked.add(Set.copyOf(frozen)),
        Duration.ofSeconds(60));
    try {
      fold(routing, "w1", AnnouncementKind.NEW_CONNECTION, "bob", "c2");
      fold(routing, "w1", AnnouncementKind.USER_FROZEN, "bob"); // the idle valve: no destination
      // the barrier runs before its batch is written: wait for both
      await(() -> asked.contains(Set.of("bob")) && frozen(journal).contains("bob"),
          "bob forced and written by a batch of the journal's own");
    } finally {
      journal.close(false);
    }
  }

  @Test
  void theWaitForAWakeIsBounded() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    Journal journal = Journal.start(home(), routing, frozen -> asked.add(Set.copyOf(frozen)),
        Duration.ofMillis(100));
    try {
      freezeForAMove(routing); // and never woken
      await(() -> asked.contains(Set.of("anna")) && frozen(journal).contains("anna"),
          "anna forced and written once the wait ran out");
    } finally {
      journal.close(false);
    }
  }

  private static Set<String> awake(Journal journal) {
    try {
      return Set.copyOf(JournalReplay.read(journal.file()).awake());
    } catch (IOException e) {
      return Set.of();
    }
  }

  private static Set<String> frozen(Journal journal) {
    try {
      return Set.copyOf(JournalReplay.read(journal.file()).frozen());
    } catch (IOException e) {
      return Set.of();
    }
  }
}
