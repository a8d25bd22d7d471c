package dev.cryo.worker;

import static dev.cryo.worker.Harness.get;
import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.freezer.Freezer;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream checklist's departures: freeze, transfers, the idle valve, quit. */
class DeparturesTest {

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

  private boolean hosted(Worker on, String user) {
    return on.registry().userItems().contains(user);
  }

  @Test
  void twoWorkersSharingAFreezerHandUsersBackAndForthWithEveryStoreIntact() {
    Worker other = harness.worker("w2");
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p1", "connection"));
    Harness.call(worker, increment("anna", "c2", "p2", "user"));
    Harness.call(worker, TestCall.rpc("anna", "c1", "p1", "put").withArguments(Map.of("scope", "user",
        "key", "cart", "value", Map.of("items", List.of("A-1", "B-2"), "photo", new byte[] {1, 2}))));
    Worker[] hosts = {worker, other};
    for (int round = 1; round <= 6; round++) {
      Worker from = hosts[(round + 1) % 2];
      Worker to = hosts[round % 2];
      assertThat(from.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
      assertThat(hosted(from, "anna")).isFalse();
      assertThat(number(Harness.call(to, increment("anna", "c1", "p1", "page").withUserFrozen())))
          .isEqualTo(1L + round);
      assertThat(harness.told(to.name())).endsWith("user_adopted:anna");
    }
    Worker last = hosts[0];
    assertThat(number(Harness.call(last, get("anna", "c1", "p1", "connection")))).isEqualTo(1L);
    assertThat(number(Harness.call(last, get("anna", "c2", "p2", "user")))).isEqualTo(1L);
    Object cart = Harness.call(last, TestCall.rpc("anna", "c2", "p2", "get")
        .withArguments(Map.of("scope", "user", "key", "cart")));
    assertThat(((Map<?, ?>) cart).get("items")).isEqualTo(List.of("A-1", "B-2"));
    // Bytes travel as JSON does (base64 text), and come back whole.
    assertThat(java.util.Base64.getDecoder().decode((String) ((Map<?, ?>) cart).get("photo")))
        .containsExactly(1, 2);
    assertThat(last.photo().users().get("anna").connectionIds()).containsExactlyInAnyOrder("c1", "c2");
  }

  @Test
  void anInFlightCallDefersTheFreezeUntilTheLastCallCloses() {
    RequestSlot first = worker.openRequest(increment("anna", "c1", "p1", "page").arrival());
    RequestSlot second = worker.openRequest(increment("anna", "c1", "p1", "page").arrival());
    CompletableFuture<FreezeOutcome> freeze = worker.freezeUser("anna");
    assertThat(worker.freezeUser("anna")).as("no double park").isSameAs(freeze);

    first.close();
    assertThat(freeze).isNotDone();
    assertThat(worker.photo().users().get("anna").pendingCalls()).isEqualTo(1);
    second.close();
    assertThat(freeze.join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(hosted(worker, "anna")).isFalse();
    assertThat(worker.photo().users()).isEmpty();
  }

  @Test
  void theParcelIsASnapshotOfTheMomentOfTheFreeze() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    worker.freezeUser("anna").join();
    Object parcel = harness.freezer.readUserParcel("anna").orElseThrow();
    assertThat(number(((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) parcel).get("store")).get("n"))
        .get("value"))).isEqualTo(1L);
    // A new anna born here without the verdict changes nothing in the frozen parcel.
    Harness.call(worker, increment("anna", "c7", "p7", "user"));
    Harness.call(worker, increment("anna", "c7", "p7", "user"));
    Object again = harness.freezer.readUserParcel("anna").orElseThrow();
    assertThat(again).isEqualTo(parcel);
  }

  @Test
  void aBusySemaphoreTimesOutTheFreezeAndTheWakeAndChangesNothing() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();

    CompletableFuture<FreezeOutcome> freeze = worker.freezeUser("anna");
    driveRetries(freeze);
    assertThatThrownBy(freeze::join).cause().isInstanceOfSatisfying(WorkerException.class, e -> {
      assertThat(e.reason()).isEqualTo(RefusalReason.SEMAPHORE_TIMEOUT);
      assertThat(e.getMessage()).contains("somebody else");
    });
    assertThat(worker.freezeFailures()).isEqualTo(1);
    assertThat(number(Harness.call(worker, get("anna", "c1", "p1", "page")))).isEqualTo(1L);

    worker.dropUser("anna");
    CompletableFuture<Object> wake = CompletableFuture.supplyAsync(
        () -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen()));
    driveRetries(wake);
    assertThatThrownBy(wake::join).isInstanceOf(CompletionException.class).cause()
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.WAKE_FAILED))
        .hasRootCauseInstanceOf(WorkerException.class);
    assertThat(hosted(worker, "anna")).isFalse();
    assertThat(harness.freezer.semaphoreHolder("anna").orElseThrow().holder())
        .isEqualTo("somebody else");
  }

  private void driveRetries(CompletableFuture<?> operation) {
    harness.driveRetries(operation);
  }

  @Test
  void flagsComeOnlyFromAPlanRideThePhotoAndWaitForTheGate() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    Harness.call(worker, increment("carl", "c3", "p3", "page"));
    assertThat(worker.photo().users().values()).allMatch(user -> user.transferFlag() == null);

    worker.planTransfers(Map.of("anna", TransferFlag.TRANSFER, "bob", TransferFlag.EXPIRY,
        "nobody", TransferFlag.TRANSFER));
    assertThat(worker.photo().users().get("anna").transferFlag()).isEqualTo(TransferFlag.TRANSFER);
    assertThat(worker.photo().users().get("bob").transferFlag()).isEqualTo(TransferFlag.EXPIRY);
    assertThat(worker.photo().users().get("carl").transferFlag()).isNull();

    harness.schedule.advance(Duration.ofMillis(1999));
    assertThat(hosted(worker, "anna")).as("the gate is not open yet").isTrue();
    assertThat(hosted(worker, "bob")).isTrue();

    harness.schedule.advance(Duration.ofMillis(1));
    harness.await("flagged users gone, and told", () -> !hosted(worker, "anna")
        && !hosted(worker, "bob") && harness.told("w1").containsAll(List.of("user_frozen:anna",
            "drop_user:bob")));
    assertThat(hosted(worker, "carl")).isTrue();
    assertThat(harness.freezer.folderKeys()).containsExactly("anna"); // bob expired: nothing written
  }

  @Test
  void flaggedUsersLeaveInTheOrderThePlanAskedNotInTheTenantMapsOrder() {
    java.util.concurrent.ConcurrentHashMap<String, Boolean> map =
        new java.util.concurrent.ConcurrentHashMap<>(); // filled as the worker's own tenant map
    for (int i = 0; i < 30; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "page"));
      map.put("u" + i, true);
    }
    List<String> asked = new java.util.ArrayList<>(map.keySet());
    java.util.Collections.reverse(asked); // the map's walk, backwards: the old loop's worst order
    Map<String, TransferFlag> plan = new java.util.LinkedHashMap<>();
    asked.forEach(user -> plan.put(user, TransferFlag.TRANSFER));

    worker.planTransfers(plan);
    harness.schedule.advance(Duration.ofSeconds(2));
    harness.await("every flagged user gone", () -> worker.registry().userItems().keys().isEmpty());
    // The last user leaves the registry before his user_frozen reaches the listener.
    harness.await("every user_frozen heard", () -> harness.told("w1").stream()
        .filter(t -> t.startsWith("user_frozen:")).count() == asked.size());

    List<String> frozen = harness.told("w1").stream().filter(t -> t.startsWith("user_frozen:"))
        .map(t -> t.substring("user_frozen:".length())).toList();
    assertThat(frozen).containsExactlyElementsOf(asked);
  }

  @Test
  void aFlaggedUserMidCallLeavesWhenHisLastCallCloses() {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    RequestSlot slot = worker.openRequest(increment("anna", "c1", "p1", "page").arrival());
    worker.planTransfers(Map.of("anna", TransferFlag.TRANSFER));
    harness.schedule.advance(Duration.ofSeconds(2));
    harness.await("the departure claimed", () -> harness.schedule.runDue() == 0);
    assertThat(hosted(worker, "anna")).isTrue();
    slot.close();
    harness.await("anna gone, and told", () -> !hosted(worker, "anna")
        && harness.told("w1").contains("user_frozen:anna"));
  }

  @Test
  void anUnfreezingRowIsNotParkedAndTheFreezeOrderWaitsForTheWake() throws Exception {
    worker = harness.builder("w9").semaphoreWaitLimit(Duration.ofSeconds(10)).build();
    harness.workers.add(worker);
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    worker.freezeUser("anna").join();
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    CompletableFuture<Object> wake = CompletableFuture.supplyAsync(
        () -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen()));
    harness.await("anna unfreezing", () -> worker.photo().users().containsKey("anna"));
    assertThat(worker.photo().users().get("anna").state()).isEqualTo(UserState.UNFREEZING);

    worker.planTransfers(Map.of("anna", TransferFlag.TRANSFER));
    CompletableFuture<FreezeOutcome> ordered = worker.freezeUser("anna");
    harness.schedule.advance(Duration.ofSeconds(2)); // past the gate: still not parked, he is waking
    assertThat(worker.photo().users().get("anna").state()).isEqualTo(UserState.UNFREEZING);
    assertThat(ordered).as(() -> String.valueOf(ordered)).isNotDone();

    harness.freezer.releaseSemaphore("anna", "somebody else");
    driveRetries(wake); // the wake's next tries
    assertThat(number(wake.get())).isEqualTo(2L);
    harness.await("frozen after the wake", () -> ordered.isDone());
    assertThat(ordered.join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(hosted(worker, "anna")).isFalse();
  }

  @Test
  void theIdleValveFreezesUsersWhoseRealClocksAreOld() {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    harness.schedule.advance(Duration.ofMinutes(10));
    Harness.call(worker, TestCall.rpc("bob", "c2", "p2", "get"));
    Harness.call(worker, TestCall.ping("anna", "c1", "p1")); // a beat is no sign of life
    harness.schedule.advance(Duration.ofMinutes(10));

    assertThat(worker.freezeIdle(Duration.ofMinutes(15))).containsExactly("anna");
    harness.await("anna frozen", () -> !hosted(worker, "anna"));
    assertThat(hosted(worker, "bob")).isTrue();
  }

  @Test
  void quitFreezesEveryoneIncludingLateArrivalsCutsStragglersAndReports(@TempDir Path other)
      throws Exception {
    Freezer into = new Freezer(other.resolve("reboot-temp"));
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    RequestSlot stuck = worker.openRequest(increment("carl", "c3", "p3", "page").arrival());

    CompletableFuture<QuitReport> report = worker.quit(into);
    assertThat(worker.quit(into)).isSameAs(report);
    Harness.call(worker, increment("dora", "c4", "p4", "page")); // arrives after the quit began
    assertThat(worker.photo().users().values()).allMatch(u -> u.transferFlag() == TransferFlag.TRANSFER);

    harness.schedule.advance(Duration.ofSeconds(2));
    harness.await("all but the straggler gone", () -> worker.registry().userItems().keys()
        .equals(java.util.Set.of("carl")));
    assertThat(report).isNotDone();

    harness.schedule.advance(Duration.ofSeconds(5)); // the grace runs out
    QuitReport done = report.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(done.frozen()).isEqualTo(4);
    assertThat(done.cut()).isEqualTo(1);
    assertThat(done.failed()).isZero();
    assertThat(worker.isFinished()).isTrue();
    assertThat(into.folderKeys()).containsExactlyInAnyOrder("anna", "bob", "carl", "dora");
    assertThat(harness.freezer.folderKeys()).isEmpty();
    stuck.close(); // a cut call closes quietly
    assertThatThrownBy(() -> Harness.call(worker, increment("anna", "c1", "p1", "page")))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.WORKER_FINISHED));
  }

  @Test
  void aMassFreezeLetsOtherWorkRunBetweenTwoUsers() {
    // One departure at a time, so that the turns can be counted; with more (the default), each is
    // still one task of the schedule (QuitDeparturesAtOnceTest).
    Worker worker = harness.builder("w-turns").quitDeparturesAtOnce(1).build();
    harness.workers.add(worker);
    for (int i = 0; i < 5; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "page"));
    }
    worker.quit();
    harness.schedule.skip(Duration.ofSeconds(2)); // the gate is open from the next turn
    // One departure per turn of the schedule: once one has ended, the next waits for the next
    // turn, and meanwhile every user still here is served.
    int servedBetween = 0;
    for (int turn = 0; turn < 50 && !worker.isFinished(); turn++) {
      harness.schedule.turn();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (!worker.isFinished() && !harness.schedule.dueWithin(Duration.ZERO)) {
        assertThat(System.nanoTime() < deadline).as("a departure ended").isTrue();
        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
      }
      for (String user : worker.registry().userItems().keys()) {
        String index = user.substring(1);
        assertThat(Harness.call(worker, get(user, "c" + index, "p" + index, "page"))).isEqualTo(1L);
        servedBetween++;
      }
    }
    assertThat(worker.isFinished()).isTrue();
    assertThat(servedBetween).as("5 + 4 + 3 + 2 + 1: all still here are served at every turn")
        .isEqualTo(15);
  }

  @Test
  void aRefusingDiskKeepsTheUserAliveAndActive() throws Exception {
    Path mount = Files.createDirectory(temp.resolve("small"));
    org.junit.jupiter.api.Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o",
        "size=256k,mode=0700", "tmpfs", mount.toString()),
        "cannot mount a small tmpfs here (needs root): the refusing-disk test is skipped");
    try {
      Freezer small = new Freezer(mount.resolve("freezer"));
      Worker worker2 = Worker.builder("w3", small).application(new AppHost(new StoreApplication()))
          .schedule(harness.schedule).diskExecutor(harness.disk).build();
      Harness.call(worker2, TestCall.rpc("anna", "c1", "p1", "put").withArguments(
          Map.of("scope", "user", "key", "blob", "value", new byte[200 * 1024])));
      Harness.call(worker2, increment("anna", "c1", "p1", "page"));
      Files.write(mount.resolve("filler"), new byte[216 * 1024]); // what is left cannot hold the parcel

      assertThatThrownBy(() -> worker2.freezeUser("anna").join()).cause()
          .isInstanceOfSatisfying(WorkerException.class,
              e -> assertThat(e.reason()).isEqualTo(RefusalReason.FREEZER_FAILED))
          .hasMessageContaining("stays alive and active");
      assertThat(worker2.freezeFailures()).isEqualTo(1);
      assertThat(worker2.photo().freezeFailures()).isEqualTo(1);
      assertThat(small.folderKeys()).isEmpty(); // semaphore back, nothing half-frozen left
      assertThat(worker2.photo().users().get("anna").state()).isEqualTo(UserState.ACTIVE);
      assertThat(number(Harness.call(worker2, increment("anna", "c1", "p1", "page")))).isEqualTo(2L);
      Files.delete(mount.resolve("filler"));
      Harness.call(worker2, TestCall.rpc("anna", "c1", "p1", "put").withArguments(
          Map.of("scope", "user", "key", "blob", "value", "small now")));
      assertThat(worker2.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
      worker2.close();
    } finally {
      assertThat(run("umount", mount.toString())).as("umount").isTrue();
    }
  }

  @Test
  void aFailedDepartureNeitherStallsTheLoopNorTheQuitAndOneWarningNamesTheHolder()
      throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    java.util.List<java.util.logging.LogRecord> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Logger log = java.util.logging.Logger.getLogger(Worker.class.getName());
    java.util.logging.Handler handler = new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord record) {
        if (record.getLevel() == java.util.logging.Level.WARNING) {
          warnings.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    log.addHandler(handler);
    try {
      CompletableFuture<QuitReport> report = worker.quit();
      harness.schedule.advance(Duration.ofSeconds(2));
      harness.driveRetries(report);
      QuitReport done = report.join();
      assertThat(done.frozen()).isEqualTo(1);
      assertThat(done.failed()).isEqualTo(1);
      assertThat(hosted(worker, "bob")).isFalse();
      assertThat(hosted(worker, "anna")).as("alive, as the failure left him").isTrue();
      assertThat(worker.freezeFailures()).isEqualTo(1);
      assertThat(warnings.stream().filter(r -> r.getMessage().contains("is held by 'somebody else'")))
          .as("one warning for the whole wait, naming the holder").hasSize(1);
    } finally {
      log.removeHandler(handler);
    }
  }

  @Test
  void aGuestWhoHoldsNothingIsFrozenAfterTheShorterLimitAndHisParcelsSaySo() throws Exception {
    Harness.call(worker, get("guest_c1", "c1", "p1", "user")); // reads only: holds nothing
    Harness.call(worker, increment("guest_c2", "c2", "p2", "page")); // wrote into a page
    Harness.call(worker, get("anna", "c3", "p3", "user")); // holds nothing, but is no guest
    harness.schedule.advance(Duration.ofSeconds(40));

    assertThat(worker.freezeIdle(Duration.ofMinutes(10), Duration.ofSeconds(30)))
        .containsExactly("guest_c1");
    harness.await("the empty guest frozen", () -> !hosted(worker, "guest_c1"));
    assertThat(harness.freezer.userParcelHeader("guest_c1").orElseThrow().cause())
        .isEqualTo(dev.cryo.freezer.ParcelHeader.EMPTY_GUEST_CAUSE);
    assertThat(harness.freezer.connectionParcelHeader("guest_c1", "c1").orElseThrow().cause())
        .isEqualTo(dev.cryo.freezer.ParcelHeader.EMPTY_GUEST_CAUSE);
    assertThat(hosted(worker, "guest_c2")).isTrue();
    assertThat(hosted(worker, "anna")).isTrue();

    harness.schedule.advance(Duration.ofMinutes(10));
    assertThat(worker.freezeIdle(Duration.ofMinutes(10), Duration.ofSeconds(30)))
        .containsExactlyInAnyOrder("guest_c2", "anna");
    harness.await("the others frozen", () -> !hosted(worker, "guest_c2")
        && !hosted(worker, "anna"));
    assertThat(harness.freezer.userParcelHeader("guest_c2").orElseThrow().cause())
        .as("a guest who wrote is frozen as anybody").isEqualTo("idle");
  }

  /**
   * Issue 23: a guest with no page who never wrote anything is dropped by a passivation (the idle
   * valve, the heap valve), not frozen: no folder, and the commander is told as of any drop. A
   * guest who wrote, a guest with a page, and an empty guest whose freeze the commander ordered
   * are frozen as before.
   */
  @Test
  void aPassivatedGuestWithoutPageWhoHoldsNothingIsDroppedAndLeavesNoFolder() throws Exception {
    Harness.call(worker, get("guest_c1", "c1", null, "user")); // reads only, no page
    Harness.call(worker, increment("guest_c2", "c2", null, "user")); // wrote, no page
    Harness.call(worker, get("guest_c3", "c3", null, "user"));
    Harness.call(worker, get("guest_c4", "c4", null, "user"));
    harness.schedule.advance(Duration.ofSeconds(40));

    assertThat(worker.freezeIdle(Duration.ofMinutes(10), Duration.ofSeconds(30)))
        .containsExactlyInAnyOrder("guest_c1", "guest_c3", "guest_c4");
    harness.await("the empty guests gone", () -> !hosted(worker, "guest_c1")
        && !hosted(worker, "guest_c3") && !hosted(worker, "guest_c4"));
    assertThat(harness.freezer.folderKeys()).as("no folder made for them").isEmpty();
    assertThat(harness.told("w1")).contains("drop_connections:c1", "drop_user:guest_c1")
        .doesNotContain("user_frozen:guest_c1");

    Harness.call(worker, get("guest_c5", "c5", null, "user"));
    assertThat(worker.depart("guest_c5", false, HeapValve.CAUSE, false).join())
        .as("the heap valve drops him too").isEqualTo(FreezeOutcome.DROPPED);
    Harness.call(worker, get("guest_c6", "c6", null, "user"));
    assertThat(worker.freezeUser("guest_c6").join()).as("an ordered freeze still freezes")
        .isEqualTo(FreezeOutcome.FROZEN);
    assertThat(harness.freezer.folderKeys()).containsExactly("guest_c6");

    harness.schedule.advance(Duration.ofMinutes(10));
    assertThat(worker.freezeIdle(Duration.ofMinutes(10), Duration.ofSeconds(30)))
        .containsExactly("guest_c2");
    harness.await("the writer frozen", () -> !hosted(worker, "guest_c2"));
    assertThat(harness.freezer.userParcelHeader("guest_c2").orElseThrow().cause())
        .as("a guest who wrote is frozen as before").isEqualTo("idle");
    assertThat(harness.told("w1")).contains("user_frozen:guest_c2")
        .doesNotContain("drop_user:guest_c2");
  }

  @Test
  void theEmptyGuestMarkIsDecidedFromTheParcelsWritten() throws Exception {
    Harness.call(worker, increment("guest_c1", "c1", "p1", "user"));
    worker.freezeUser("guest_c1").join(); // not the idle valve: never marked
    assertThat(harness.freezer.userParcelHeader("guest_c1").orElseThrow().cause())
        .isNotEqualTo(dev.cryo.freezer.ParcelHeader.EMPTY_GUEST_CAUSE);
    harness.schedule.advance(Duration.ofMinutes(20));
    Harness.call(worker, get("guest_c3", "c3", "p3", "user"));
    harness.schedule.advance(Duration.ofMinutes(20));
    assertThat(worker.freezeIdle(Duration.ofMinutes(10))).containsExactly("guest_c3");
    harness.await("frozen", () -> !hosted(worker, "guest_c3"));
    assertThat(harness.freezer.userParcelHeader("guest_c3").orElseThrow().cause())
        .as("held nothing when frozen by the valve").isEqualTo(
            dev.cryo.freezer.ParcelHeader.EMPTY_GUEST_CAUSE);
  }

  @Test
  void theValveFreezesAnEmptyGuestOnItsOwnScheduleAndHeWakesWithHisClocks() {
    Duration every = Worker.Builder.idleCheckPeriod(Duration.ofSeconds(30));
    assertThat(every).isEqualTo(Duration.ofMillis(7500));
    assertThat(Worker.Builder.idleCheckPeriod(Duration.ofMinutes(10)))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(Worker.Builder.idleCheckPeriod(Duration.ofMillis(200)))
        .isEqualTo(Duration.ofSeconds(1));
    Worker valved = harness.builder("w-guests").idleFreeze(Duration.ofMinutes(10), every)
        .emptyGuestIdleFreeze(Duration.ofSeconds(30), every).build();
    harness.workers.add(valved);
    Harness.call(valved, get("guest_c1", "c1", "p1", "user"));
    harness.schedule.advance(Duration.ofSeconds(25));
    assertThat(hosted(valved, "guest_c1")).isTrue();
    harness.schedule.advance(Duration.ofSeconds(15));
    harness.await("the empty guest frozen by the valve", () -> !hosted(valved, "guest_c1"));
  }

  @Test
  void theIdleValveCanRunOnTheWorkersOwnSchedule() {
    Worker valved = harness.builder("w-idle")
        .idleFreeze(Duration.ofMinutes(15), Duration.ofMinutes(1)).build();
    harness.workers.add(valved);
    Harness.call(valved, increment("anna", "c1", "p1", "page"));
    harness.schedule.advance(Duration.ofMinutes(14));
    assertThat(hosted(valved, "anna")).isTrue();
    harness.schedule.advance(Duration.ofMinutes(2));
    harness.await("anna frozen by the valve", () -> !hosted(valved, "anna"));
  }

  @Test
  void quitWaitsForAWakeInProgressThenSendsThatUserAwayToo() throws Exception {
    worker = harness.builder("w-pull").semaphoreWaitLimit(Duration.ofSeconds(30)).build();
    harness.workers.add(worker);
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    worker.freezeUser("anna").join();
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    CompletableFuture<Object> pull = CompletableFuture.supplyAsync(
        () -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen()));
    harness.await("anna unfreezing", () -> worker.photo().users().containsKey("anna"));

    CompletableFuture<QuitReport> report = worker.quit();
    harness.schedule.advance(Duration.ofSeconds(2));
    assertThat(report).as("the quit waits for the pull").isNotDone();
    harness.freezer.releaseSemaphore("anna", "somebody else");
    harness.driveRetries(report);

    assertThat(number(pull.join())).as("the pulling call was served").isEqualTo(2L);
    assertThat(report.join().frozen()).isEqualTo(1);
    assertThat(hosted(worker, "anna")).isFalse();
    assertThat(harness.freezer.folderKeys()).containsExactly("anna");
  }

  /**
   * Once a quit into a root began, every departure that runs goes there: a freeze claimed before
   * the quit (it waited for a call), one that was retrying its semaphore, the idle valve, a login
   * tail, a freeze ordered from above. None goes to the worker's own freezer, and the quit waits
   * for each.
   */
  @Test
  void aQuitIntoARootTakesEveryDepartureThatRunsAfterItBegan(@TempDir Path other)
      throws Exception {
    Freezer into = new Freezer(other.resolve("reboot-temp"));
    RequestSlot annaCall = worker.openRequest(increment("anna", "c1", "p1", "page").arrival());
    CompletableFuture<FreezeOutcome> annaFreeze = worker.freezeUser("anna"); // claimed, deferred
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    Harness.call(worker, increment(null, "c3", "p3", "user")); // guest_c3
    Harness.call(worker, increment("dora", "c4", "p4", "page"));
    harness.schedule.advance(Duration.ofMinutes(20)); // bob (and the others) idle from now
    Harness.call(worker, increment("dora", "c4", "p4", "page"));
    Harness.call(worker, increment(null, "c3", "p3", "user"));

    Harness.call(worker, increment("eve", "c5", "p5", "page"));
    assertThat(harness.freezer.tryTakeSemaphore("eve", "somebody else")).isTrue();
    CompletableFuture<FreezeOutcome> eveFreeze = worker.freezeUser("eve"); // running, retrying
    harness.await("eve's first try failed", () -> harness.schedule.pending() > 0);

    CompletableFuture<QuitReport> report = worker.quit(into);
    harness.freezer.releaseSemaphore("eve", "somebody else");
    harness.driveRetries(eveFreeze);
    assertThat(eveFreeze.join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(worker.freezeIdle(Duration.ofMinutes(15))).contains("bob");
    harness.whereabouts.put("carl", IdentityLocator.Location.on("w2")); // so: the login tail
    CompletableFuture<LoginOutcome> login = worker.login("c3", "carl");
    CompletableFuture<FreezeOutcome> doraFreeze = worker.freezeUser("dora");
    harness.await("bob, carl's connection and dora gone", () -> doraFreeze.isDone()
        && login.isDone() && !hosted(worker, "bob"));
    annaCall.close();
    assertThat(annaFreeze.get(10, java.util.concurrent.TimeUnit.SECONDS))
        .isEqualTo(FreezeOutcome.FROZEN);
    assertThat(login.join()).isEqualTo(LoginOutcome.HANDED_OVER);

    harness.schedule.advance(Duration.ofSeconds(2));
    QuitReport done = report.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(harness.freezer.folderKeys()).as("the worker's own freezer").isEmpty();
    assertThat(into.folderKeys()).containsExactlyInAnyOrder("anna", "bob", "carl", "dora", "eve");
    assertThat(Files.exists(into.connectionParcel("carl", "c3"))).isTrue();
    assertThat(done.failed()).isZero();
  }

  /**
   * A straggler stuck inside a store action when the quit cuts it: the freeze tries the row's lock
   * and, finding it busy, lets go of the semaphore and the disk thread and tries again on the
   * schedule, up to the grace; then the departure fails, counted, and the quit finishes. The
   * worker has one disk thread: were it pinned, nothing else could reach the disk.
   */
  @Test
  void aStragglerStuckInAStoreActionCannotHoldTheQuitPastItsGrace() throws Exception {
    java.util.concurrent.ExecutorService oneDisk = java.util.concurrent.Executors
        .newSingleThreadExecutor(task -> {
          Thread thread = new Thread(task, "the-only-disk-thread");
          thread.setDaemon(true);
          return thread;
        });
    java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors
        .newCachedThreadPool(task -> {
          Thread thread = new Thread(task);
          thread.setDaemon(true);
          return thread;
        });
    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    try {
      Worker quitting = harness.builder("w-straggle").diskExecutor(oneDisk).build();
      harness.workers.add(quitting);
      Harness.call(quitting, increment("anna", "c1", "p1", "page"));
      Harness.call(quitting, increment("carl", "c3", "p3", "user"));
      java.util.concurrent.Future<Object> straggler = callers.submit(() -> Harness.inCall(
          quitting, increment("carl", "c3", "p3", "user"), host -> host.withStore(
              dev.cryo.app.Scope.USER, null,
              store -> {
                inside.countDown();
                try {
                  return go.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              })));
      assertThat(inside.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

      CompletableFuture<QuitReport> report = quitting.quit();
      harness.schedule.advance(Duration.ofSeconds(2)); // the gate: anna leaves, carl is waited for
      harness.await("anna gone", () -> !hosted(quitting, "anna"));
      harness.schedule.advance(Duration.ofSeconds(5)); // the grace: carl's call is cut
      harness.await("carl's freeze retrying", () -> harness.schedule.dueWithin(
          Duration.ofMillis(50)));
      assertThat(harness.freezer.semaphoreHolder("carl")).as("no semaphore held while waiting")
          .isEmpty();
      java.util.concurrent.Future<String> probe = oneDisk.submit(() -> "the disk thread is free");
      assertThat(probe.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo("the disk thread is free");

      harness.driveRetries(report); // the grace of the row's wait runs out
      QuitReport done = report.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(done.frozen()).isEqualTo(1);
      assertThat(done.cut()).isEqualTo(1);
      assertThat(done.failed()).as("carl, whose store stayed locked").isEqualTo(1);
      assertThat(quitting.isFinished()).isTrue();
      assertThat(hosted(quitting, "carl")).as("left as he was").isTrue();
      assertThat(harness.freezer.folderKeys()).containsExactly("anna");
      go.countDown();
      assertThat(straggler.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(true);
    } finally {
      go.countDown();
      callers.shutdownNow();
      oneDisk.shutdown();
    }
  }

  /**
   * The application's freeze hook reaches the user's store under its row's lock; for a user whose
   * calls a quit cut, a straggler may hold it forever. The hook is not run for a cut user, so the
   * departing thread — the schedule's — is never held by it.
   */
  @Test
  void aCutUsersFreezeHookIsSkippedSoAStuckStoreCannotHoldTheSchedule() throws Exception {
    List<String> hooked = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors
        .newCachedThreadPool(task -> {
          Thread thread = new Thread(task);
          thread.setDaemon(true);
          return thread;
        });
    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    AppHost hooking = new AppHost(new StoreApplication() {
      @Override
      public void onFreeze(dev.cryo.app.Stay stay, dev.cryo.app.FreezeReason reason) {
        stay.user(StoreApplication.N.class).get(); // reaches the user's row, under its lock
        hooked.add(stay.user());
      }
    });
    try {
      Worker quitting = harness.builder("w-hook").application(hooking).build();
      harness.workers.add(quitting);
      Harness.call(quitting, increment("anna", "c1", "p1", "page"));
      Harness.call(quitting, increment("carl", "c3", "p3", "user"));
      java.util.concurrent.Future<Object> straggler = callers.submit(() -> Harness.inCall(
          quitting, increment("carl", "c3", "p3", "user"), host -> host.withStore(
              dev.cryo.app.Scope.USER, null,
              store -> {
                inside.countDown();
                try {
                  return go.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              })));
      assertThat(inside.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      CompletableFuture<QuitReport> report = quitting.quit();
      harness.schedule.advance(Duration.ofSeconds(2)); // the gate: anna leaves, hooked
      harness.await("anna gone", () -> !hosted(quitting, "anna"));
      java.util.concurrent.Future<?> cut = callers.submit(
          () -> harness.schedule.advance(Duration.ofSeconds(5))); // the grace: carl is cut
      cut.get(10, java.util.concurrent.TimeUnit.SECONDS);
      harness.driveRetries(report);
      assertThat(report.get(10, java.util.concurrent.TimeUnit.SECONDS).failed()).isEqualTo(1);
      assertThat(hooked).containsExactly("anna");
      go.countDown();
      straggler.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      go.countDown();
      callers.shutdownNow();
    }
  }

  static boolean run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && process.exitValue() == 0;
  }
}
