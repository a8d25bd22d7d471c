package dev.cryo.commander;

import static dev.cryo.wire.protocol.AnnouncementKind.DROP_CONNECTION;
import static dev.cryo.wire.protocol.AnnouncementKind.DROP_PAGE;
import static dev.cryo.wire.protocol.AnnouncementKind.DROP_PAGES;
import static dev.cryo.wire.protocol.AnnouncementKind.DROP_USER;
import static dev.cryo.wire.protocol.AnnouncementKind.LOGIN;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_CONNECTION;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_PAGE;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_USER;
import static dev.cryo.wire.protocol.AnnouncementKind.USER_ADOPTED;
import static dev.cryo.wire.protocol.AnnouncementKind.USER_FROZEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RoutingTest {

  private final RecordingSink sink = new RecordingSink();
  private final Routing routing = new Routing(sink);
  private final Map<String, long[]> sequences = new java.util.HashMap<>();

  private void tell(String worker, AnnouncementKind kind, String user, String key) {
    tell(worker, kind, user, List.of(key), null);
  }

  private void tell(String worker, AnnouncementKind kind, String user, List<String> keys,
      String detail) {
    long sequence = ++sequences.computeIfAbsent(worker, w -> new long[1])[0];
    routing.fold(worker, new Announcement(sequence, kind, user, keys, detail));
  }

  /** A guest born on w1 with connection c1 and page p1, as the worker announces it. */
  private void guestBorn(String worker, String connection, String page) {
    String guest = "guest_" + connection;
    tell(worker, NEW_USER, guest, guest);
    tell(worker, NEW_CONNECTION, guest, connection);
    tell(worker, NEW_PAGE, guest, page);
  }

  @Test
  void birthsMapConnectionUserAndPage() {
    guestBorn("w1", "c1", "p1");

    assertThat(routing.userOf("c1")).contains("guest_c1");
    assertThat(routing.locate("guest_c1")).isEqualTo(new OnWorker("w1"));
    assertThat(routing.connectionOfPage("p1")).contains("c1");
    assertThat(routing.usersOn("w1")).containsExactly("guest_c1");
    assertThat(routing.lastSequence("w1")).isEqualTo(3);
    assertThat(sink.of("fold")).hasSize(3);
    assertThat(sink.of("anomaly")).isEmpty();
  }

  @Test
  void aPageTakesTheConnectionTheWorkerNames() {
    tell("w1", NEW_USER, "anna", "anna");
    tell("w1", NEW_CONNECTION, "anna", "c1");
    tell("w1", NEW_CONNECTION, "anna", "c2");
    tell("w1", NEW_PAGE, "anna", List.of("p1"), "c1");
    tell("w1", NEW_PAGE, "anna", List.of("p2"), null); // the last new connection of hers

    assertThat(routing.connectionOfPage("p1")).contains("c1");
    assertThat(routing.connectionOfPage("p2")).contains("c2");
  }

  @Test
  void frozenOnlyFromUserFrozenAndConnectionsSurviveTheFreeze() {
    guestBorn("w1", "c1", "p1");
    tell("w1", DROP_PAGES, "guest_c1", List.of("p1"), null);
    assertThat(routing.locate("guest_c1")).isEqualTo(new OnWorker("w1"));

    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");

    assertThat(routing.locate("guest_c1")).isEqualTo(new Frozen(null));
    assertThat(routing.userOf("c1")).contains("guest_c1"); // the cookie still resolves
    assertThat(routing.connectionOfPage("p1")).isEmpty();
    assertThat(routing.usersOn("w1")).isEmpty();
    assertThat(routing.counts().frozen()).isEqualTo(1);
  }

  @Test
  void aFrozenUsersPagesStayMappedForTheirSocketsUntilHeIsDropped() {
    guestBorn("w1", "c1", "p1");
    tell("w1", NEW_PAGE, "guest_c1", "p2");
    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");
    tell("w1", DROP_PAGES, "guest_c1", List.of("p1", "p2"), null); // the freeze's rows

    assertThat(routing.connectionOfPage("p1")).contains("c1");
    assertThat(routing.pagesOf("c1")).containsExactly("p1", "p2");

    tell("w2", NEW_USER, "guest_c1", "guest_c1"); // woken elsewhere: his pages announced anew
    tell("w2", NEW_CONNECTION, "guest_c1", "c1");
    tell("w2", NEW_PAGE, "guest_c1", List.of("p1", "p2"), "c1");
    tell("w2", DROP_PAGE, "guest_c1", "p2"); // alive: a drop is a drop
    assertThat(routing.pagesOf("c1")).containsExactly("p1");
    assertThat(sink.of("anomaly")).isEmpty();
  }

  @Test
  void aPushNamesThePagesOfItsTargetFromTheMaps() {
    guestBorn("w1", "c1", "p1");
    tell("w1", NEW_PAGE, "guest_c1", "p2");
    java.util.List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    PushRelay relay = new PushRelay(routing);
    relay.sink((connection, page, data) -> written.add(connection + "/" + page) && !page.equals("p2"));
    byte[] data = "1".getBytes();

    assertThat(relay.push(new dev.cryo.wire.protocol.PushMessage("page", "p1", data)))
        .isEqualTo(new dev.cryo.wire.protocol.PushResult(1, 1));
    assertThat(relay.push(new dev.cryo.wire.protocol.PushMessage("connection", "c1", data)))
        .isEqualTo(new dev.cryo.wire.protocol.PushResult(2, 1));
    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");
    assertThat(relay.push(new dev.cryo.wire.protocol.PushMessage("user", "guest_c1", data)))
        .isEqualTo(new dev.cryo.wire.protocol.PushResult(2, 1));
    assertThat(relay.push(new dev.cryo.wire.protocol.PushMessage("page", "nope", data)))
        .isEqualTo(new dev.cryo.wire.protocol.PushResult(0, 0));
    assertThat(written).containsExactly("c1/p1", "c1/p1", "c1/p2", "c1/p1", "c1/p2");
  }

  @Test
  void anAdoptionElsewherePlacesTheFrozenUserThere() {
    guestBorn("w1", "c1", "p1");
    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");
    Location.Frozen bound = routing.bindFrozen("guest_c1", "w2").orElseThrow();
    assertThat(bound.destination()).isEqualTo("w2");
    assertThat(bound.wakeGeneration()).isPositive();
    assertThat(routing.bindFrozen("guest_c1", "w3")).contains(bound); // a burst goes one way
    assertThat(routing.occupancy("w2")).isEqualTo(1);

    tell("w2", NEW_USER, "guest_c1", "guest_c1");
    tell("w2", NEW_CONNECTION, "guest_c1", "c1");
    tell("w2", NEW_PAGE, "guest_c1", "p1");
    tell("w2", USER_ADOPTED, "guest_c1", "guest_c1");

    assertThat(routing.locate("guest_c1")).isEqualTo(new OnWorker("w2"));
    assertThat(routing.usersOn("w2")).containsExactly("guest_c1");
    assertThat(routing.connectionOfPage("p1")).contains("c1");
  }

  @Test
  void aWorkerTellingOfAnotherWorkersUserIsRepairedAndChangesNothing() {
    guestBorn("w1", "c1", "p1");

    tell("w2", NEW_USER, "guest_c1", "guest_c1");
    tell("w2", USER_FROZEN, "guest_c1", "guest_c1");
    tell("w2", DROP_PAGE, "guest_c1", "p1"); // the copy's drop, as a repair makes it
    tell("w2", DROP_CONNECTION, "guest_c1", "c1");
    tell("w2", DROP_USER, "guest_c1", "guest_c1");

    assertThat(routing.locate("guest_c1")).isEqualTo(new OnWorker("w1"));
    assertThat(routing.userOf("c1")).as("the copy's drop takes nothing of his").contains("guest_c1");
    assertThat(routing.connectionOfPage("p1")).contains("c1");
    assertThat(routing.repairs()).containsEntry("second_copy", 1L)
        .containsEntry("frozen_copy", 1L);
    assertThat(sink.of("repair")).hasSize(2);
    assertThat(routing.counts().anomalies()).isEqualTo(1); // the drop of a user w2 never held
  }

  /**
   * The review's finding 5: two logins into one new identity on two workers at once. The first
   * question claims him for its worker; the second hears that worker holds him (and hands its
   * connection over), never "nowhere".
   */
  @Test
  void twoLoginsIntoOneNewIdentityHearOneClaim() {
    Routing.Claim first = routing.locateFor("anna", "w1");
    Routing.Claim second = routing.locateFor("anna", "w2");

    assertThat(first.claimed()).isTrue();
    assertThat(first.location()).isInstanceOfSatisfying(OnWorker.class, on -> {
      assertThat(on.worker()).isEqualTo("w1");
      assertThat(on.generation()).isPositive();
    });
    assertThat(second.claimed()).isFalse();
    assertThat(second.location()).isEqualTo(first.location());
    assertThat(sink.of("claim")).hasSize(1);
  }

  @Test
  void aStayTwoPhotosShowAndTheMapsDoNotGiveIsDroppedAndAnAbsentOneMarkedFrozen() {
    java.util.List<String> orders = new java.util.ArrayList<>();
    routing.repairOrders((worker, user, generation) -> orders.add(worker + " " + user + " "
        + generation));
    routing.fold("w1", new Announcement(1, NEW_USER, "anna", List.of("anna"), null, 5));
    routing.fold("w1", new Announcement(2, NEW_USER, "bob", List.of("bob"), null, 6));

    // w2 holds a stay of anna's no grant gave it; w1 no longer holds bob.
    routing.reconcile("w2", Map.of("anna", 3L));
    routing.reconcile("w1", Map.of("anna", 5L));
    assertThat(orders).as("one photo is not enough: it races with announcements").isEmpty();
    routing.reconcile("w2", Map.of("anna", 3L));
    routing.reconcile("w1", Map.of("anna", 5L));

    assertThat(orders).containsExactly("w2 anna 3");
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w1", 5));
    assertThat(routing.locate("bob")).isInstanceOf(Frozen.class);
    assertThat(routing.repairs()).containsEntry("stray_copy", 1L).containsEntry("absent", 1L);
  }

  /**
   * A photo that is one page of a worker's users says nothing of the users outside its range:
   * none of them is found absent however many such pages come, and a user is found absent only
   * once two pages covering him both showed him missing.
   */
  @Test
  void aPageOfAPhotoFindsAbsentOnlyTheUsersItCovers() {
    routing.fold("w1", new Announcement(1, NEW_USER, "anna", List.of("anna"), null, 5));
    routing.fold("w1", new Announcement(2, NEW_USER, "bob", List.of("bob"), null, 6));
    routing.fold("w1", new Announcement(3, NEW_USER, "carl", List.of("carl"), null, 7));
    java.util.function.Predicate<String> first = user -> user.compareTo("anna") <= 0;
    java.util.function.Predicate<String> second = user -> user.compareTo("anna") > 0;

    // The first page (through anna) lists anna: bob and carl are on the second page.
    for (int cycle = 0; cycle < 3; cycle++) {
      routing.reconcile("w1", Map.of("anna", 5L), first);
    }
    assertThat(routing.locate("bob")).as("never covered: never absent")
        .isEqualTo(new OnWorker("w1", 6));
    assertThat(routing.locate("carl")).isEqualTo(new OnWorker("w1", 7));
    assertThat(routing.repairs()).doesNotContainKey("absent");

    // The second page shows carl but not bob, twice, with first pages between.
    routing.reconcile("w1", Map.of("carl", 7L), second);
    routing.reconcile("w1", Map.of("anna", 5L), first);
    assertThat(routing.locate("bob")).as("one covering photo is not enough")
        .isEqualTo(new OnWorker("w1", 6));
    routing.reconcile("w1", Map.of("carl", 7L), second);

    assertThat(routing.locate("bob")).isInstanceOf(Frozen.class);
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w1", 5));
    assertThat(routing.locate("carl")).isEqualTo(new OnWorker("w1", 7));
    assertThat(routing.repairs()).containsExactly(Map.entry("absent", 1L));
  }

  @Test
  void aCopyAnnouncedAtAGenerationTheMapsDoNotGiveIsDroppedByAFencedOrder() {
    java.util.List<String> orders = new java.util.ArrayList<>();
    routing.repairOrders((worker, user, generation) -> orders.add(worker + " " + user + " "
        + generation));
    long born = routing.nextGeneration();
    routing.fold("w1", new Announcement(1, NEW_USER, "anna", List.of("anna"), null, born));
    routing.fold("w1", new Announcement(2, USER_FROZEN, "anna", List.of("anna"), null, born));
    Location.Frozen bound = routing.bindFrozen("anna", "w2").orElseThrow();

    // A copy of a stay no newer than his freeze, on w3: dropped there at its own generation.
    routing.fold("w3", new Announcement(1, NEW_USER, "anna", List.of("anna"), null, born));
    // The wake the maps granted lands.
    routing.fold("w2", new Announcement(1, USER_ADOPTED, "anna", List.of("anna"), null,
        bound.wakeGeneration()));

    assertThat(orders).containsExactly("w3 anna " + born);
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w2", bound.wakeGeneration()));
    assertThat(bound.generation()).isEqualTo(born);
    assertThat(bound.wakeGeneration()).isGreaterThan(born);
    assertThat(routing.repairs()).containsExactly(Map.entry("second_copy", 1L));
  }

  /**
   * #22's wake window: a user woken on w2 whose worker died before it checkpointed him was lost;
   * his worker now keeps the parcel he was woken from until it writes his own, and the maps freeze
   * him back at it.
   */
  @Test
  void aUserWhoseWorkerDiedBeforeItCheckpointedHimIsFrozenBackAtTheParcelHeWasWokenFrom() {
    long born = routing.nextGeneration();
    routing.fold("w1", new Announcement(1, NEW_USER, "anna", List.of("anna"), null, born));
    routing.fold("w1", new Announcement(2, NEW_CONNECTION, "anna", List.of("c1"), null, born));
    routing.fold("w1", new Announcement(3, USER_FROZEN, "anna", List.of("anna"), null, born));
    Location.Frozen bound = routing.bindFrozen("anna", "w2").orElseThrow();
    routing.fold("w2", new Announcement(1, NEW_USER, "anna", List.of("anna"), null,
        bound.wakeGeneration()));
    routing.fold("w2", new Announcement(2, NEW_CONNECTION, "anna", List.of("c1"), null,
        bound.wakeGeneration()));
    assertThat(routing.wokenFrom("anna")).isEqualTo(born);

    List<String> lost = routing.workerDied("w2", "killed", false,
        Map.of("anna", new UserParcels(born, Map.of("c1", List.of()))));

    assertThat(lost).isEmpty();
    assertThat(routing.locate("anna")).isEqualTo(new Frozen(null, born, 0));
    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(routing.wokenFrom("anna")).isZero();
  }

  @Test
  void aSequenceGapIsAnAnomaly() {
    routing.fold("w1", Announcement.of(1, NEW_USER, "anna", "anna"));
    routing.fold("w1", Announcement.of(3, NEW_CONNECTION, "anna", "c1"));

    assertThat(routing.counts().anomalies()).isEqualTo(1);
    assertThat(routing.userOf("c1")).contains("anna"); // folded anyway
    assertThat(routing.lastSequence("w1")).isEqualTo(3);
  }

  @Test
  void aGuestsLoginRekeysHimAndTheCookieFollows() {
    guestBorn("w1", "c1", "p1");

    tell("w1", LOGIN, "anna", List.of("c1"), "guest_c1"); // a transfer: no drop_user follows

    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w1"));
    assertThat(routing.locate("guest_c1")).isEqualTo(Location.UNKNOWN);
    assertThat(routing.connectionOfPage("p1")).contains("c1");
    assertThat(routing.usersOn("w1")).containsExactly("anna");
  }

  @Test
  void theLoginTailLeavesTheConnectionWithTheIdentityElsewhere() {
    tell("w2", NEW_USER, "anna", "anna");
    tell("w2", NEW_CONNECTION, "anna", "c9");
    guestBorn("w1", "c1", "p1");

    tell("w1", LOGIN, "anna", List.of("c1"), "guest_c1");
    tell("w1", DROP_PAGES, "guest_c1", List.of("p1"), null);
    tell("w1", DROP_CONNECTION, "guest_c1", "c1");
    tell("w1", DROP_USER, "guest_c1", "guest_c1");

    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("w2"));
    assertThat(routing.locate("guest_c1")).isEqualTo(Location.UNKNOWN);
    assertThat(routing.connectionsOf("anna")).containsExactly("c1", "c9");
    assertThat(sink.of("anomaly")).isEmpty();
  }

  /**
   * A soak's defect: c1 was handed to anna by a login tail on w1, and before w2 adopted it, anna's
   * only connection there logged into bob: w2 dropped her, and the maps forgot c1 with her, so its
   * browser became a new guest. She is kept frozen for it instead, unbound, at generation 0.
   */
  @Test
  void aDroppedUserKeepsTheConnectionsALoginHandedToHimFrozen() {
    tell("w2", NEW_USER, "anna", "anna");
    tell("w2", NEW_CONNECTION, "anna", "c9");
    guestBorn("w1", "c1", "p1");
    tell("w1", LOGIN, "anna", List.of("c1"), "guest_c1");
    tell("w1", DROP_PAGES, "guest_c1", List.of("p1"), null);
    tell("w1", DROP_CONNECTION, "guest_c1", "c1");
    tell("w1", DROP_USER, "guest_c1", "guest_c1");

    tell("w2", LOGIN, "bob", List.of("c9"), "anna");
    tell("w2", NEW_USER, "bob", "bob");
    tell("w2", DROP_USER, "anna", "anna");

    assertThat(routing.userOf("c9")).contains("bob");
    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(routing.locate("anna")).isEqualTo(new Frozen(null));
    assertThat(sink.of("user_kept")).singleElement()
        .satisfies(event -> assertThat(event.fields().get("connections")).isEqualTo(List.of("c1")));
    assertThat(sink.of("anomaly")).isEmpty();
  }

  @Test
  void aDroppedUserTakesHisConnectionsAndPages() {
    guestBorn("w1", "c1", "p1");
    tell("w1", DROP_USER, "guest_c1", "guest_c1");

    assertThat(routing.knowsConnection("c1")).isFalse();
    assertThat(routing.connectionOfPage("p1")).isEmpty();
    assertThat(routing.counts()).isEqualTo(new Routing.Counts(0, 0, 0, 0, 0, 0, 0, 4));
  }

  @Test
  void aDeadWorkersUnfrozenUsersAreLostAndItsFrozenOnesUntouched() {
    guestBorn("w1", "c1", "p1");
    guestBorn("w1", "c2", "p2");
    tell("w1", USER_FROZEN, "guest_c2", "guest_c2");
    guestBorn("w2", "c3", "p3");
    routing.bindFrozen("guest_c2", "w1");

    List<String> lost = routing.workerDied("w1", "end of wire");

    assertThat(lost).containsExactly("guest_c1");
    assertThat(routing.knowsConnection("c1")).isFalse();
    assertThat(routing.connectionOfPage("p1")).isEmpty();
    assertThat(routing.locate("guest_c2")).isEqualTo(new Frozen(null)); // not bound to the dead
    assertThat(routing.userOf("c2")).contains("guest_c2");
    assertThat(routing.locate("guest_c3")).isEqualTo(new OnWorker("w2"));
    assertThat(routing.counts().lost()).isEqualTo(1);
    assertThat(sink.of("worker_died")).singleElement()
        .satisfies(e -> {
          assertThat(e.fields().get("lost")).isEqualTo(List.of("guest_c1"));
          assertThat(e.fields().get("planned")).as("a death is unplanned").isEqualTo(false);
        });
  }

  @Test
  void theFoldOfUserFrozenReleasesTheHoldWithItsDestinationFirst() throws Exception {
    guestBorn("w1", "c1", "p1");
    Hold hold = routing.hold("guest_c1", HoldReason.MOVING, "w2").orElseThrow();
    assertThat(routing.hold("guest_c1", HoldReason.FREEZING, null)).isEmpty();
    CompletableFuture<Location> seenByWaiter = CompletableFuture.supplyAsync(() -> {
      try {
        assertThat(routing.awaitUnheld("guest_c1", System.nanoTime()
            + Duration.ofSeconds(20).toNanos())).isTrue();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return routing.locate("guest_c1");
    });

    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");

    assertThat(seenByWaiter.get(20, TimeUnit.SECONDS)).isInstanceOfSatisfying(Frozen.class,
        frozen -> assertThat(frozen.destination()).isEqualTo("w2"));
    assertThat(hold.isReleased()).isTrue();
    assertThat(routing.holdOf("guest_c1")).isEmpty();
  }

  @Test
  void aMovesEventIsWrittenByTheFoldOfItsFreezeBeforeTheAdoption() {
    guestBorn("w1", "c1", "p1");
    routing.hold("guest_c1", HoldReason.MOVING, "w2").orElseThrow();

    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");
    tell("w2", NEW_USER, "guest_c1", "guest_c1");
    tell("w2", USER_ADOPTED, "guest_c1", "guest_c1");

    List<String> order = sink.events().stream()
        .map(e -> e.event() + ":" + e.fields().getOrDefault("kind", e.fields().get("to")))
        .toList();
    assertThat(order).containsSubsequence("fold:user_frozen", "move:w2", "fold:user_adopted");
    assertThat(sink.of("move").get(0).fields()).containsEntry("from", "w1")
        .containsEntry("refused", null);
  }

  @Test
  void anOrderedFreezeWritesNoMove() {
    guestBorn("w1", "c1", "p1");
    routing.hold("guest_c1", HoldReason.FREEZING, null).orElseThrow();

    tell("w1", USER_FROZEN, "guest_c1", "guest_c1");

    assertThat(sink.of("move")).isEmpty();
    assertThat(routing.locate("guest_c1")).isEqualTo(new Frozen(null));
  }

  @Test
  void aHoldNotReleasedTimesTheWaiterOut() throws Exception {
    guestBorn("w1", "c1", "p1");
    Hold hold = routing.hold("guest_c1", HoldReason.FREEZING, null).orElseThrow();

    assertThat(routing.awaitUnheld("guest_c1", System.nanoTime()
        + Duration.ofMillis(50).toNanos())).isFalse();

    routing.release(hold);
    assertThat(routing.awaitUnheld("guest_c1", System.nanoTime())).isTrue();
    assertThat(routing.locate("guest_c1")).isEqualTo(new OnWorker("w1")); // a failed freeze
  }

  @Test
  void theDeathOfHisWorkerReleasesAHeldUser() throws Exception {
    guestBorn("w1", "c1", "p1");
    Hold hold = routing.hold("guest_c1", HoldReason.MOVING, "w2").orElseThrow();

    routing.workerDied("w1", "killed");

    assertThat(hold.isReleased()).isTrue();
    assertThat(routing.locate("guest_c1")).isEqualTo(Location.UNKNOWN);
  }
}
