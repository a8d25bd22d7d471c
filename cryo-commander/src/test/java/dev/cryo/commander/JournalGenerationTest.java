package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A frozen user's generation is written to the journal with his freeze (issue 21: "written to the
 * journal before it is used"), and to the drain's item: after a restart his wake's grant names the
 * parcel of that generation as its minimum, instead of accepting any parcel.
 */
class JournalGenerationTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  private final AtomicLong sequence = new AtomicLong();

  private void fold(Routing routing, AnnouncementKind kind, String user, long generation,
      String... keys) {
    routing.fold("w1", new Announcement(sequence.incrementAndGet(), kind, user, List.of(keys),
        null, generation));
  }

  private RunHome home() throws IOException {
    return homes.claim(directory);
  }

  @Test
  void aFreezesGenerationIsJournaledAndAdoptedAsTheWakesParcelMinimum() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE);
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", 7, "c1");
      fold(routing, AnnouncementKind.USER_FROZEN, "anna", 7);
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", 9, "c2");
      journal.flush();
    } finally {
      journal.close(false);
    }

    JournalReplay replay = JournalReplay.read(journal.file());
    CommanderItem item = replay.item(Instant.EPOCH);
    assertThat(item.frozen()).containsExactly("anna");
    assertThat(item.generations()).isEqualTo(Map.of("anna", 7L));

    Routing next = new Routing(new RecordingSink());
    next.adopt(item, replay.awake());
    assertThat(next.locate("anna")).isEqualTo(new Location.Frozen(null, 7, 0));
  }

  /**
   * A killed run's awake user comes back from a parcel of the stay the journal last knew him in,
   * or a newer one; a parcel of an earlier stay is residue (a guest woken, then merged into another
   * identity by a login: his worker froze nothing of him), and he is named lost, never brought back
   * from it.
   */
  @Test
  void anAwakeUsersParcelOlderThanTheStayTheJournalKnowsIsNotAdopted() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    RunHome home = home();
    Journal journal = Journal.start(home, routing, Journal.Barrier.NONE);
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", 7, "c1");
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", 9, "c2");
      journal.flush();
    } finally {
      journal.close(false); // as a kill leaves it: nothing frozen, the journal kept
    }
    JournalReplay replay = JournalReplay.read(journal.file());
    assertThat(replay.stayGeneration("anna")).isEqualTo(7L);
    assertThat(replay.stayGeneration("bob")).isEqualTo(9L);

    dev.cryo.freezer.Freezer freezer = new dev.cryo.freezer.Freezer(directory.resolve("freezer"));
    parcel(freezer, "anna", 5); // of an earlier stay
    parcel(freezer, "bob", 9); // written by his worker when it lost its commander

    Adoption.Found found = Adoption.at(home, freezer, Instant.EPOCH);
    assertThat(found.lost()).containsExactly("anna");
    assertThat(found.item().orElseThrow().frozen()).containsExactly("bob");
    assertThat(found.item().orElseThrow().generations()).isEqualTo(Map.of("bob", 9L));
    assertThat(found.line()).contains("anna (parcel 5, stay 7)");
  }

  private static void parcel(dev.cryo.freezer.Freezer freezer, String user, long generation)
      throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w1")).isTrue();
    freezer.writeUserParcel(user, Map.of(dev.cryo.wire.protocol.Grant.PARCEL_FIELD, generation,
        "connections", List.of()), "w1", "freeze", "main");
    freezer.releaseSemaphore(user, "w1");
  }

  @Test
  void aCompactedJournalKeepsTheStaysGenerations() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    fold(routing, AnnouncementKind.NEW_CONNECTION, "erik", 15, "c5");
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE); // compacts at start
    journal.close(false);

    assertThat(JournalReplay.read(journal.file()).stayGeneration("erik")).isEqualTo(15L);
  }

  @Test
  void aCompactedJournalKeepsTheGenerations() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    fold(routing, AnnouncementKind.NEW_CONNECTION, "carla", 11, "c3");
    fold(routing, AnnouncementKind.USER_FROZEN, "carla", 11);
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE); // compacts at start
    journal.close(false);

    assertThat(JournalReplay.read(journal.file()).item(Instant.EPOCH).generations())
        .isEqualTo(Map.of("carla", 11L));
  }

  @Test
  void theDrainsItemCarriesTheGenerationsAndAnOlderItemReadsWithout() {
    Routing routing = new Routing(new RecordingSink());
    fold(routing, AnnouncementKind.NEW_CONNECTION, "dora", 13, "c4");
    fold(routing, AnnouncementKind.USER_FROZEN, "dora", 13);
    CommanderItem item = CommanderItem.of(routing.snapshot(), Instant.EPOCH, "drain");

    CommanderItem read = CommanderItem.fromPayload(item.toPayload());
    assertThat(read.generations()).isEqualTo(Map.of("dora", 13L));

    Map<String, Object> older = new java.util.LinkedHashMap<>(item.toPayload());
    older.remove("generations");
    CommanderItem old = CommanderItem.fromPayload(older);
    assertThat(old.generations()).isEmpty();
    Routing next = new Routing(new RecordingSink());
    next.adopt(old, List.of());
    assertThat(next.locate("dora")).isEqualTo(new Location.Frozen(null, 0, 0));
  }
}
