package dev.cryo.worker;

import static dev.cryo.worker.Harness.get;
import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.RegisterException;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream checklist's login: the relabel in place, and the login tail to another worker. */
class LoginTest {

  @TempDir Path temp;
  Harness harness;
  Worker worker;
  Worker other;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
    other = harness.worker("w2");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  /** A guest on c1 with a page p1, two clicks in his user store and one in his page's. */
  private void guest() {
    Harness.call(worker, increment(null, "c1", "p1", "user"));
    Harness.call(worker, increment(null, "c1", "p1", "user"));
    Harness.call(worker, increment(null, "c1", "p1", "page"));
  }

  @Test
  void theRelabelIsImmediateAndTheGuestStoreObjectIsInherited() {
    guest();
    Object guestStore = worker.registry().userItems().get("guest_c1").orElseThrow().store();
    harness.heard("w1").clear();

    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.RELABELLED);

    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user()).isEqualTo("anna");
    assertThat(worker.registry().userItems().get("anna").orElseThrow().store()).isSameAs(guestStore);
    assertThat(worker.registry().userItems().contains("guest_c1")).isFalse();
    assertThat(harness.heard("w1")).singleElement().satisfies(announcement -> {
      assertThat(announcement.kind()).isEqualTo(AnnouncementKind.LOGIN);
      assertThat(announcement.user()).isEqualTo("anna");
      assertThat(announcement.keys()).containsExactly("c1");
      assertThat(announcement.detail()).isEqualTo("guest_c1");
    });
    assertThat(worker.registry().pageUser("p1")).isEqualTo("anna");
    assertThat(number(Harness.call(worker, increment("anna", "c1", "p1", "user")))).isEqualTo(3L);
    assertThat(worker.photo().users().keySet()).containsExactly("anna");
  }

  @Test
  void aLoginOntoAResidentLeavesTheResidentStoreTheTruth() {
    Harness.call(worker, increment("anna", "c0", "p0", "user")); // anna lives here
    guest();
    worker.login("c1", "anna").join();
    assertThat(number(Harness.call(worker, get("anna", "c1", "p1", "user")))).isEqualTo(1L);
    assertThat(harness.told("w1")).endsWith("login:c1", "drop_user:guest_c1");
    assertThat(worker.photo().users().get("anna").connectionIds()).containsExactlyInAnyOrder("c0", "c1");
  }

  /**
   * A short schedule's defect: a guest moved here (frozen on one worker, woken on this one) wrote
   * once more, then logged into an identity living here, and the commander was killed. The next
   * start found his parcel of before the move, left in place by the wake, and brought him back from
   * it: his acknowledged write gone, his connection owned twice. What the wake read is dropped as
   * his stay ends in the login (on a disk trip, which a quit on losing the commander waits for), so
   * it leaves nothing of him to wake.
   */
  @Test
  void aWokenGuestWhoLogsIntoAResidentLeavesNoParcelToBeWokenFrom() throws Exception {
    Harness.call(worker, increment("anna", "c0", "p0", "user")); // anna lives here
    Harness.call(other, increment(null, "c1", "p1", "user"));
    other.freezeUser("guest_c1").join();
    assertThat(harness.freezer.readUserParcel("guest_c1")).isPresent();
    assertThat(number(Harness.call(worker, increment("guest_c1", "c1", "p1", "user")
        .withUserFrozen()))).isEqualTo(2L);

    worker.login("c1", "anna").join();

    assertThat(harness.told("w1")).endsWith("login:c1", "drop_user:guest_c1");
    // What his wake read is dropped as his stay ends without the freezer.
    harness.await("the guest's parcels dropped", () -> {
      try {
        return harness.freezer.readUserParcel("guest_c1").isEmpty()
            && harness.freezer.readWokenParcel("guest_c1").isEmpty()
            && harness.freezer.readConnectionParcel("guest_c1", "c1").isEmpty();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  @Test
  void aLoginFromInsideACallMovesTheCallToTheNewIdentity() {
    guest();
    Harness.call(worker, TestCall.userEvent(null, "c1", "p1", "login").withArguments(Map.of("user", "anna")));
    // The login call moved with its connection: it is anna's, and was closed and counted as hers.
    assertThat(worker.photo().users().get("anna").servedCalls()).isEqualTo(1);
    assertThat(worker.photo().pendingCallCount()).isZero();
    assertThat(number(Harness.call(worker, increment("anna", "c1", "p1", "user")))).isEqualTo(3L);
  }

  /**
   * A freeze of bob waits for his call on c2; that call logs c2 into anna, so it leaves bob with
   * it: bob, who keeps c3, has no call left, and his freeze must start then, not wait for a call
   * that is no longer his (it waited for ever, and so did a drain's quit).
   */
  @Test
  void aFreezeWaitingForACallThatALoginTakesAwayStartsAtTheLogin() {
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    Harness.call(worker, increment("bob", "c3", "p3", "page"));
    CompletableFuture<FreezeOutcome> freeze = Harness.inCall(worker,
        TestCall.rpc("bob", "c2", "p2", "login"), host -> {
          CompletableFuture<FreezeOutcome> ordered = worker.freezeUser("bob", null);
          assertThat(ordered).as("the freeze waits for bob's call").isNotDone();
          assertThat(worker.login("c2", "anna").join()).isEqualTo(LoginOutcome.RELABELLED);
          harness.await("bob's freeze, once his last call went to anna", ordered::isDone);
          return ordered;
        });
    assertThat(freeze.join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(worker.registry().userItems().contains("bob")).isFalse();
    assertThat(worker.registry().connectionItems().get("c2").orElseThrow().user())
        .isEqualTo("anna");
  }

  @Test
  void theGuestsFlagIsDroppedWhileARealPreviousOwnerKeepsHis() {
    guest();
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    Harness.call(worker, increment("bob", "c3", "p3", "page"));
    worker.planTransfers(Map.of("guest_c1", TransferFlag.TRANSFER, "bob", TransferFlag.TRANSFER));

    worker.login("c1", "anna").join();
    worker.login("c2", "carl").join(); // an avatar switch: bob keeps c3

    Map<String, Photo.UserPhoto> users = worker.photo().users();
    assertThat(users.get("anna").transferFlag()).isNull();
    assertThat(users.get("carl").transferFlag()).isNull();
    assertThat(users.get("bob").transferFlag()).isEqualTo(TransferFlag.TRANSFER);
  }

  @Test
  void aGuestTargetIsRefusedAndNothingChanges() {
    guest();
    assertThatThrownBy(() -> worker.login("c1", "guest_c9"))
        .isInstanceOfSatisfying(RegisterException.class,
            e -> assertThat(e.reason()).isEqualTo(RegisterException.Reason.GUEST_TARGET));
    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user())
        .isEqualTo("guest_c1");
  }

  @Test
  void theLoginTailCarriesTheGuestStoreToTheWorkerWithoutAResident() throws Exception {
    guest();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.HANDED_OVER);

    assertThat(worker.registry().connectionItems().size()).isZero();
    assertThat(worker.registry().userItems().size()).isZero();
    assertThat(worker.photo().users()).isEmpty();
    harness.await("told", () -> harness.told("w1").contains("drop_user:guest_c1"));
    assertThat(harness.told("w1")).endsWith("login:c1", "drop_pages:p1", "drop_connection:c1",
        "drop_user:guest_c1");
    assertThat(Files.exists(harness.freezer.connectionParcel("anna", "c1"))).isTrue();

    // The worker that gets anna's next call adopts the connection, with the carried store.
    assertThat(number(Harness.call(other, increment("anna", "c1", "p1", "user")))).isEqualTo(3L);
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page")))).isEqualTo(1L);
    assertThat(harness.told("w2")).startsWith("new_user:anna", "new_connection:c1", "new_page:p1");
    assertThat(harness.freezer.folderKeys()).isEmpty();
  }

  @Test
  void theNextWakeKeepsTheResidentStoreOverTheCarriedOne() {
    Harness.call(other, increment("anna", "c0", "p0", "user")); // anna lives on w2
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    guest();
    worker.login("c1", "anna").join();

    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user")))).isEqualTo(1L);
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page")))).isEqualTo(1L);
    assertThat(other.photo().users().get("anna").connectionIds()).containsExactlyInAnyOrder("c0", "c1");
  }

  @Test
  void anAvatarSwitchCarriesNoStore() throws Exception {
    Harness.call(worker, increment("bob", "c1", "p1", "user"));
    harness.whereabouts.put("carl", IdentityLocator.Location.on("w2"));
    worker.login("c1", "carl").join();
    Map<?, ?> parcel = (Map<?, ?>) harness.freezer.readConnectionParcel("carl", "c1").orElseThrow();
    assertThat(parcel.containsKey("carried_user_store")).isFalse();
    assertThat(parcel.get("store")).isEqualTo(Map.of()); // the connection's own store travels
    assertThat(Harness.call(other, get("carl", "c1", "p1", "user"))).isNull(); // carl born with his own
    assertThat(worker.registry().userItems().contains("bob")).isFalse(); // c1 was his only one
  }

  /**
   * A soak's defect: race164 kept a second connection here while his first was handed over to
   * id12 by a login tail; a call of that first connection, routed to race164 before the commander
   * folded the login, made it anew here, empty. Two users then owned it, and after a restart its
   * browser's pages answered 404 {@code unknown_page}. The call is refused and routed again.
   */
  @Test
  void aCallRoutedToTheOwnerAConnectionWasHandedOverFromIsRefusedNotMadeAnew() {
    Harness.call(worker, increment("bob", "c0", "p0", "user")); // bob keeps c0 here
    Harness.call(worker, increment("bob", "c1", "p1", "user"));
    harness.whereabouts.put("carl", IdentityLocator.Location.on("w2"));
    assertThat(worker.login("c1", "carl").join()).isEqualTo(LoginOutcome.HANDED_OVER);

    assertThatThrownBy(() -> Harness.call(worker, increment("bob", "c1", "p1", "page")))
        .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
            .isEqualTo(RefusalReason.USER_MISMATCH))
        .hasMessageContaining("handed over");
    assertThat(worker.registry().connectionItems().contains("c1")).isFalse();
    assertThat(worker.photo().users().get("bob").connectionIds()).containsExactly("c0");
    assertThat(number(Harness.call(other, increment("carl", "c1", "p1", "page")))).isEqualTo(1L);
  }

  /**
   * A soak's defect: race368's connection logged into id42 here (a relabel), and id42 was frozen
   * with it; a call routed to race368 before the maps heard of the login found the connection gone
   * and made it anew under race368 — a second copy, which then answered the connection's new
   * cookie as a stranger's (a new guest). The call is refused and routed again.
   */
  @Test
  void aCallRoutedToTheOwnerAConnectionWasRelabelledFromIsRefusedNotMadeAnew() {
    Harness.call(worker, increment("bob", "c0", "p0", "user")); // bob keeps c0 here
    Harness.call(worker, increment("bob", "c1", "p1", "user"));
    assertThat(worker.login("c1", "carl").join()).isEqualTo(LoginOutcome.RELABELLED);
    worker.freezeUser("carl").join(); // carl leaves, and c1 with him

    assertThatThrownBy(() -> Harness.call(worker, increment("bob", "c1", "p1", "page")))
        .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
            .isEqualTo(RefusalReason.USER_MISMATCH));
    assertThat(worker.registry().connectionItems().contains("c1")).isFalse();
    assertThat(worker.photo().users().get("bob").connectionIds()).containsExactly("c0");
  }

  /**
   * A short schedule's defect: a call of race36's connection, routed to race36, looked up the
   * connection's owner; the connection's login into race41 on this worker then relabelled it and
   * moved the calls open on it, but not this one, not open yet. Its slot opened on race36, its
   * handler ran in race36's turn, and the user store it reached was the connection's owner's:
   * race41's counter written outside race41's turn, answered as race36's (the auditor's
   * TWO_LIVE_COPIES on a raced identity). The call is refused and routed again.
   */
  @Test
  void aCallWhoseConnectionIsLoggedInElsewhereAsItEntersIsRefusedNotServedAsTheOldOwner() {
    Harness.call(worker, increment("carl", "c0", "p0", "user")); // carl lives here: 1
    Harness.call(worker, increment("bob", "c1", "p1", "user")); // bob owns c1 here: 1
    java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
    worker.afterOwnerOf(() -> {
      if (once.compareAndSet(false, true)) {
        assertThat(worker.login("c1", "carl").join()).isEqualTo(LoginOutcome.RELABELLED);
      }
    });

    assertThatThrownBy(() -> Harness.call(worker, increment("bob", "c1", "p1", "user")))
        .isInstanceOfSatisfying(WorkerException.class, e -> assertThat(e.reason())
            .isEqualTo(RefusalReason.USER_MISMATCH))
        .hasMessageContaining("was logged into 'carl'");
    worker.afterOwnerOf(null);
    assertThat(number(Harness.call(worker, get("carl", "c1", "p1", "user"))))
        .as("carl's counter, untouched by bob's call").isEqualTo(1L);
  }

  @Test
  void theTailWaitsForTheLoginCallToClose() {
    guest();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    Harness.call(worker, TestCall.userEvent(null, "c1", "p1", "login").withArguments(Map.of("user", "anna")));
    // Handed over once the connection left memory and the tail gave the semaphore back: a call
    // before that would wait for a retry on the manual schedule, which only this thread moves.
    harness.await("handed over", () -> !worker.registry().connectionItems().contains("c1")
        && semaphoreFree("anna"));
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user")))).isEqualTo(2L);
  }

  private boolean semaphoreFree(String user) {
    try {
      return harness.freezer.semaphoreHolder(user).isEmpty();
    } catch (dev.cryo.lock.LockException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aBusySemaphoreLeavesEverythingAliveAsItWas() throws Exception {
    guest();
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    harness.heard("w1").clear();

    CompletableFuture<LoginOutcome> login = worker.login("c1", "anna");
    harness.driveRetries(login);

    assertThatThrownBy(login::join).cause().isInstanceOfSatisfying(WorkerException.class,
        e -> assertThat(e.reason()).isEqualTo(RefusalReason.SEMAPHORE_TIMEOUT));
    assertAliveAsItWas();
    assertThat(harness.freezer.semaphoreHolder("anna").orElseThrow().holder())
        .isEqualTo("somebody else");
  }

  @Test
  void aRefusedWriteLeavesEverythingAliveAsItWas() throws Exception {
    guest();
    // Something that is not a parcel sits where the parcel goes: the freezer refuses the write.
    Files.createDirectories(harness.freezer.connectionParcel("anna", "c1").resolve("in-the-way"));
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    harness.heard("w1").clear();

    assertThatThrownBy(() -> worker.login("c1", "anna").join()).cause()
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.FREEZER_FAILED))
        .hasMessageContaining("stays alive");
    assertAliveAsItWas();
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();
  }

  @Test
  void theWorkerAsksWhereTheIdentityLivesNotTheApplication() {
    java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    Worker asking = harness.builder("w3").identityLocator(user -> {
      asked.add(user);
      return IdentityLocator.Location.on("w2");
    }).build();
    harness.workers.add(asking);
    Harness.call(asking, increment(null, "c1", "p1", "user"));

    Harness.call(asking, TestCall.userEvent(null, "c1", "p1", "login").withArguments(Map.of("user", "anna")));

    assertThat(asked).containsExactly("anna");
    harness.await("handed over", () -> !asking.registry().connectionItems().contains("c1")
        && semaphoreFree("anna"));
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user")))).isEqualTo(1L);
  }

  @Test
  void aFrozenIdentityIsNeverShadowedByAFreshEntryHere() {
    Harness.call(other, increment("anna", "c0", "p0", "user")); // anna: 1 click, then frozen
    assertThat(other.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    guest(); // the guest: 2 clicks on this worker
    harness.whereabouts.put("anna", IdentityLocator.Location.FROZEN);

    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.HANDED_OVER);
    assertThat(worker.registry().userItems().contains("anna")).isFalse();

    // Woken with the verdict on the other worker: her own store wins, the guest's page came along.
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "user").withUserFrozen()))).isEqualTo(1L);
    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page")))).isEqualTo(1L);
    assertThat(other.photo().users().get("anna").connectionIds())
        .containsExactlyInAnyOrder("c0", "c1");
  }

  /**
   * A soak's defect: a login tail handed c1 to anna, awake on w2, and before any call of c1 adopted
   * it there, anna's only connection on w2 logged into bob, so w2 dropped her. The commander, which
   * had given c1 to anna, forgot it with her, and c1's browser became a new guest. The commander
   * now keeps her frozen at generation 0 for the connection waiting in her folder, and the wake
   * that verdict brings makes her anew, empty, with it.
   */
  @Test
  void aWakeOfAnIdentityDroppedWithAConnectionHandedToHimBringsThatConnection() throws Exception {
    Harness.call(other, increment("anna", "c0", "p0", "user")); // anna lives on w2 with c0
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    guest();
    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.HANDED_OVER);
    assertThat(other.login("c0", "bob").join()).isEqualTo(LoginOutcome.RELABELLED);
    harness.await("told", () -> harness.told("w2").contains("drop_user:anna"));
    assertThat(other.registry().userItems().contains("anna")).isFalse();

    assertThat(number(Harness.call(other, get("anna", "c1", "p1", "page").withUserFrozen())))
        .isEqualTo(1L);
    assertThat(other.photo().users().get("anna").connectionIds()).containsExactly("c1");
    assertThat(Files.exists(harness.freezer.connectionParcel("anna", "c1"))).isFalse();
  }

  @Test
  void anIdentityThisWorkerHoldsIsRelabelledInPlace() {
    Harness.call(worker, increment("anna", "c0", "p0", "user"));
    guest();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w1"));

    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.RELABELLED);
    assertThat(number(Harness.call(worker, get("anna", "c1", "p1", "user")))).isEqualTo(1L);
  }

  @Test
  void aLocatorThatCannotAnswerRefusesTheLoginAndChangesNothing() {
    Worker blind = harness.builder("w3").identityLocator(user -> {
      throw new java.io.IOException("the commander did not answer");
    }).build();
    harness.workers.add(blind);
    Harness.call(blind, increment(null, "c1", "p1", "user"));
    harness.heard("w3").clear();

    assertThatThrownBy(() -> blind.login("c1", "anna"))
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.LOCATE_FAILED);
          assertThat(e.isRetryable()).isTrue();
        })
        .hasMessageContaining("the commander did not answer")
        .hasMessageContaining("nothing was changed");
    assertThat(harness.heard("w3")).isEmpty();
    assertThat(blind.registry().connectionItems().get("c1").orElseThrow().user())
        .isEqualTo("guest_c1");
  }

  /**
   * The review's finding 5: the identity was located here (at generation 5), then frozen before
   * the relabel. Before the fence the login made him anew here, empty, beside his parcel in the
   * freezer: a second copy. Now the login is refused, retryable, and nothing changes.
   */
  @Test
  void anIdentityLocatedHereButGoneSinceIsNeverMadeAnew() {
    guest();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w1", 5, false));
    harness.heard("w1").clear();

    assertThatThrownBy(() -> worker.login("c1", "anna"))
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.STALE_GRANT);
          assertThat(e.isRetryable()).isTrue();
        })
        .hasMessageContaining("not here any more").hasMessageContaining("nothing was changed");
    assertThat(worker.registry().userItems().contains("anna")).isFalse();
    assertAliveAsItWas();
  }

  /** A claimed identity is made here at the claim's generation, and announced at it. */
  @Test
  void aClaimedIdentityIsMadeHereAtItsGeneration() {
    guest();
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w1", 9, true));

    assertThat(worker.login("c1", "anna").join()).isEqualTo(LoginOutcome.RELABELLED);
    assertThat(worker.photo().users().get("anna").generation()).isEqualTo(9);
    assertThat(harness.heard("w1")).filteredOn(a -> a.user().equals("anna"))
        .allSatisfy(a -> assertThat(a.generation()).isEqualTo(9));
  }

  private void assertAliveAsItWas() {
    assertThat(harness.heard("w1")).isEmpty();
    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user())
        .isEqualTo("guest_c1");
    assertThat(number(Harness.call(worker, increment(null, "c1", "p1", "user")))).isEqualTo(3L);
    assertThat(number(Harness.call(worker, get(null, "c1", "p1", "page")))).isEqualTo(1L);
  }
}
