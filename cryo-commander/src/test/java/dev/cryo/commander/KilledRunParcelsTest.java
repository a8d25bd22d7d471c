package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.freezer.ParcelTree;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.Grant;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commander killed within a journal batch: what happened after the journal's last record on
 * disk (a login, a page opened, a connection handed over) is in the parcels the workers wrote when
 * they lost it, and the next start takes it from them. A guest logged into a new identity 30 ms
 * before the kill came back as the guest holding the connection the login had handed over, and
 * the identity was swept as nobody's: the pages answered 404 with no loss named (the auditor's
 * {@code LOST_WRITE} on a raced identity).
 */
class KilledRunParcelsTest {

  private static final long FIRST = 100;

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  private final AtomicLong sequence = new AtomicLong();

  private void fold(Routing routing, AnnouncementKind kind, String user, long generation,
      String detail, String... keys) {
    routing.fold("w1", new Announcement(sequence.incrementAndGet(), kind, user, List.of(keys),
        detail, generation));
  }

  /** A journal of a killed run whose generations start at {@link #FIRST}. */
  private RunHome killedRun(java.util.function.Consumer<Routing> changes) throws IOException {
    RunHome home = homes.claim(directory);
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home, routing, Journal.Barrier.NONE, FIRST);
    try {
      changes.accept(routing);
      journal.flush();
    } finally {
      journal.close(false); // as a kill leaves it: the journal kept
    }
    return home;
  }

  private static void userParcel(Freezer freezer, String folderOf, String id, long generation,
      String cause, List<String> connections) throws Exception {
    assertThat(freezer.tryTakeSemaphore(folderOf, "w1")).isTrue();
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put(ParcelTree.ID, id);
    payload.put(Grant.PARCEL_FIELD, generation);
    payload.put(ParcelTree.CONNECTIONS, connections);
    freezer.writeUserParcel(folderOf, payload, "w1", cause, "main");
    freezer.releaseSemaphore(folderOf, "w1");
  }

  private static void connectionParcel(Freezer freezer, String user, String connection,
      boolean handedOver, String... pages) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w1")).isTrue();
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put(ParcelTree.ID, connection);
    payload.put(ParcelTree.PAGES, java.util.Arrays.stream(pages)
        .map(page -> Map.of(ParcelTree.ID, page)).toList());
    if (handedOver) {
      payload.put(ParcelTree.HANDED_OVER, true);
    }
    freezer.writeConnectionParcel(user, connection, payload, "w1", "login", "main");
    freezer.releaseSemaphore(user, "w1");
  }

  @Test
  void aLoginTheJournalMissedComesBackFromTheParcelsWithItsConnectionAndPages() throws Exception {
    RunHome home = killedRun(routing -> {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "guest_g", FIRST, null, "c1");
      fold(routing, AnnouncementKind.NEW_PAGE, "guest_g", FIRST, "c1", "p1");
    }); // then, unjournaled: a login moved c1 and p1 to the new identity "race61"
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    String lost = ParcelHeader.COMMANDER_LOST_CAUSE;
    userParcel(freezer, "guest_g", "guest_g", FIRST, lost, List.of());
    userParcel(freezer, "race61", "race61", FIRST + 1, lost, List.of("c1"));
    connectionParcel(freezer, "race61", "c1", false, "p1");

    Adoption.Found found = Adoption.at(home, freezer, Instant.EPOCH);

    CommanderItem item = found.item().orElseThrow();
    assertThat(item.frozen()).containsExactly("guest_g", "race61");
    assertThat(item.connectionUser()).isEqualTo(Map.of("c1", "race61"));
    assertThat(item.pageConnection()).isEqualTo(Map.of("p1", "c1"));
    assertThat(item.generations()).isEqualTo(Map.of("guest_g", FIRST, "race61", FIRST + 1));
    assertThat(found.lost()).isEmpty();
    assertThat(found.line()).contains("1 users that were awake, and 1 born after its last record,"
        + " come back from their newest parcel", "race61 (born after the journal)");
  }

  @Test
  void aConnectionHandedOverAndWaitingInTheFolderStaysAndOneGoneIsDropped() throws Exception {
    RunHome home = killedRun(routing -> {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", FIRST, null, "c1", "c2", "c3");
      fold(routing, AnnouncementKind.NEW_PAGE, "anna", FIRST, "c1", "p1");
      fold(routing, AnnouncementKind.NEW_PAGE, "anna", FIRST, "c3", "p3");
    });
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    userParcel(freezer, "anna", "anna", FIRST, ParcelHeader.COMMANDER_LOST_CAUSE,
        List.of("c1"));
    connectionParcel(freezer, "anna", "c1", false, "p1", "p4"); // p4 opened after the journal
    connectionParcel(freezer, "anna", "c2", true, "p2"); // a login tail's, not adopted yet
    // c3 was handed over to another identity (or closed) after the journal: no parcel

    CommanderItem item = Adoption.at(home, freezer, Instant.EPOCH).item().orElseThrow();

    assertThat(item.connectionUser()).isEqualTo(Map.of("c1", "anna", "c2", "anna"));
    assertThat(item.pageConnection()).isEqualTo(Map.of("p1", "c1", "p4", "c1", "p2", "c2"));
  }

  /**
   * A guest logged into a frozen identity: the login tail handed his connection over into her
   * folder, and the commander was killed before the journal linked it to her. The connection
   * follows its parcel; before, the guest's parcel did not hold it and the journal's link to him
   * was dropped: the connection was forgotten, its pages 404 (the auditor's LOST_WRITE).
   */
  @Test
  void aConnectionHandedOverToAFrozenIdentityInTheLastBatchFollowsItsParcel() throws Exception {
    RunHome home = killedRun(routing -> {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", FIRST, null, "c0");
      fold(routing, AnnouncementKind.USER_FROZEN, "anna", FIRST, null);
      fold(routing, AnnouncementKind.NEW_CONNECTION, "guest_g", FIRST + 1, null, "c1");
      fold(routing, AnnouncementKind.NEW_PAGE, "guest_g", FIRST + 1, "c1", "p1");
    });
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    userParcel(freezer, "anna", "anna", FIRST, "freeze", List.of("c0"));
    connectionParcel(freezer, "anna", "c0", false);
    connectionParcel(freezer, "anna", "c1", true, "p1"); // the tail's, waiting for a call
    userParcel(freezer, "guest_g", "guest_g", FIRST + 1, ParcelHeader.COMMANDER_LOST_CAUSE,
        List.of());

    CommanderItem item = Adoption.at(home, freezer, Instant.EPOCH).item().orElseThrow();

    assertThat(item.connectionUser()).isEqualTo(Map.of("c0", "anna", "c1", "anna"));
    assertThat(item.pageConnection()).isEqualTo(Map.of("p1", "c1"));
  }

  /**
   * The short schedule's drain during a reload: a login answered 303 (its connection handed over
   * to a frozen identity) after the drain had taken the maps; the connection's parcel waited in
   * the identity's folder, the drain's item linked the connection to the guest, whose parcels no
   * longer held it, and after the restart it answered 404 to every page. The start gives it to the
   * identity whose folder holds it.
   */
  @Test
  void aConnectionHandedOverAfterTheMapsWereTakenGoesToItsIdentityAtTheStart() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    routing.adopt(new CommanderItem(List.of("anna", "guest_g"), Map.of("c0", "anna", "c1",
        "guest_g"), Map.of("p1", "c1"), Instant.EPOCH, "drain"), List.of());
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    connectionParcel(freezer, "anna", "c1", true, "p1", "p2");
    connectionParcel(freezer, "guest_g", "c9", false, "p9"); // not handed over: his own

    int given = routing.adoptHandedOver(Adoption.handedOver(List.of("anna", "guest_g"), freezer));

    assertThat(given).isEqualTo(1);
    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(routing.connectionOfPage("p2")).contains("c1");
    assertThat(routing.userOf("c0")).contains("anna");
    assertThat(routing.userOf("c9")).isEmpty();
  }

  @Test
  void onlyACommanderLossParcelOfTheKilledRunNamingItsOwnFolderIsAdoptedUnjournaled()
      throws Exception {
    RunHome home = killedRun(routing ->
        fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", FIRST, null, "c1"));
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    String lost = ParcelHeader.COMMANDER_LOST_CAUSE;
    userParcel(freezer, "anna", "anna", FIRST, lost, List.of());
    userParcel(freezer, "born", "born", FIRST + 2, lost, List.of());
    userParcel(freezer, "frozen_elsewhere", "frozen_elsewhere", FIRST + 3, "freeze", List.of());
    userParcel(freezer, "of_an_earlier_run", "of_an_earlier_run", FIRST - 1, lost, List.of());
    userParcel(freezer, "liar", "anna", FIRST + 4, lost, List.of()); // names another's folder

    Adoption.Found found = Adoption.at(home, freezer, Instant.EPOCH);

    assertThat(found.item().orElseThrow().frozen()).containsExactly("anna", "born");
    found.consume(home, freezer);
    assertThat(freezer.folderKeys()).containsExactlyInAnyOrder("anna", "born");
  }

  @Test
  void aJournalThatDoesNotNameItsRunsGenerationsAdoptsNobodyUnjournaled() throws Exception {
    RunHome home = homes.claim(directory);
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home, routing, Journal.Barrier.NONE); // no first generation
    fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", FIRST, null, "c1");
    journal.flush();
    journal.close(false);
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    userParcel(freezer, "born", "born", FIRST + 2, ParcelHeader.COMMANDER_LOST_CAUSE, List.of());

    assertThat(Adoption.at(home, freezer, Instant.EPOCH).item().orElseThrow().frozen()).isEmpty();
  }
}
