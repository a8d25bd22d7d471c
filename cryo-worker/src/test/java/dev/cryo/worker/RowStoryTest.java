package dev.cryo.worker;

import static dev.cryo.worker.Harness.get;
import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.PageRow;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream checklist's row story: births, clocks, wakes, residue, connections, drops. */
class RowStoryTest {

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
  void birthsAreAnnouncedUserThenConnectionThenPage() {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p2", "page"));
    Harness.call(worker, increment("anna", "c2", "p3", "page"));

    assertThat(harness.told("w1")).containsExactly("new_user:anna", "new_connection:c1",
        "new_page:p1", "new_page:p2", "new_connection:c2", "new_page:p3");
    List<Long> sequence = harness.heard("w1").stream().map(Announcement::sequence).toList();
    assertThat(sequence).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  @Test
  void aCascadeIsAnnouncedInPluralsBottomUp() {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p2", "page"));
    Harness.call(worker, increment("anna", "c2", "p3", "page"));
    Harness.call(worker, increment("bob", "c3", "p4", "page"));
    harness.heard("w1").clear();

    assertThat(worker.dropUser("anna")).isTrue();
    assertThat(worker.dropPage("p4")).isTrue();

    assertThat(harness.told("w1")).containsExactly("drop_pages:p1,p2,p3",
        "drop_connections:c1,c2", "drop_user:anna", "drop_page:p4", "drop_connection:c3",
        "drop_user:bob");
    assertThat(worker.registry().userItems().size()).isZero();
    assertThat(worker.photo().users()).isEmpty();
  }

  @Test
  void dropsAreIdempotentExceptDropConnection() {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p2", "page"));

    worker.dropConnection("c1");
    assertThat(harness.told("w1")).endsWith("drop_pages:p1,p2", "drop_connection:c1",
        "drop_user:anna");
    assertThat(worker.dropUser("anna")).isFalse();
    assertThat(worker.dropPage("p1")).isFalse();
    assertThatThrownBy(() -> worker.dropConnection("c1"))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.UNKNOWN_CONNECTION))
        .hasMessageContaining("nothing was changed");
  }

  @Test
  void clocksClimbTheChainAndAPingStampsOnlyTheRefresh() {
    Instant born = harness.schedule.now();
    Harness.call(worker, TestCall.rpc("anna", "c1", "p1", "get"));
    for (String clock : List.of("last_refresh_ts", "last_rpc_ts")) {
      assertThat(clockOf("page", "p1", clock)).isEqualTo(born);
      assertThat(clockOf("connection", "c1", clock)).isEqualTo(born);
      assertThat(clockOf("user", "anna", clock)).isEqualTo(born);
    }
    assertThat(clockOf("user", "anna", "last_user_ts")).isNull();

    harness.schedule.advance(Duration.ofSeconds(10));
    Instant beat = harness.schedule.now();
    Harness.call(worker, TestCall.ping("anna", "c1", "p1"));
    assertThat(clockOf("page", "p1", "last_refresh_ts")).isEqualTo(beat);
    assertThat(clockOf("connection", "c1", "last_refresh_ts")).isEqualTo(beat);
    assertThat(clockOf("user", "anna", "last_refresh_ts")).isEqualTo(beat);
    assertThat(clockOf("user", "anna", "last_rpc_ts")).isEqualTo(born);
    assertThat(clockOf("user", "anna", "last_user_ts")).isNull();

    harness.schedule.advance(Duration.ofSeconds(10));
    Instant click = harness.schedule.now();
    Harness.call(worker, TestCall.userEvent("anna", "c1", "p1", "get"));
    assertThat(clockOf("user", "anna", "last_user_ts")).isEqualTo(click);
    assertThat(clockOf("connection", "c1", "last_user_ts")).isEqualTo(click);
    assertThat(clockOf("page", "p1", "last_user_ts")).isEqualTo(click);
    assertThat(worker.photo().users().get("anna").lastUser()).isEqualTo(click);

    assertThat(worker.ping("nowhere")).isFalse();
    assertThat(worker.registry().userItems().size()).isEqualTo(1);
  }

  private Object clockOf(String level, String key, String clock) {
    return switch (level) {
      case "page" -> worker.registry().pageItems().get(key).orElseThrow().get(clock);
      case "connection" -> worker.registry().connectionItems().get(key).orElseThrow().get(clock);
      default -> worker.registry().userItems().get(key).orElseThrow().get(clock);
    };
  }

  @Test
  void aFrozenUserWakesWithEveryStoreOnTheNextCallWithTheVerdict() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p1", "connection"));
    Harness.call(worker, increment("anna", "c1", "p1", "user"));
    Harness.call(worker, increment("anna", "c2", "p2", "page"));
    Harness.call(worker, TestCall.rpc("anna", "c1", "p3", "get")
        .withPageFields(Map.of("parent_page_id", "p1", "root_page_id", "p1")));
    assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(worker.registry().userItems().contains("anna")).isFalse();
    assertThat(harness.told("w1")).endsWith("user_frozen:anna", "drop_pages:p1,p3,p2");
    harness.heard("w1").clear();

    assertThat(Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen())).isEqualTo(2L);

    assertThat(harness.told("w1")).startsWith("new_user:anna", "new_connection:c1")
        .contains("new_page:p1", "new_page:p3", "new_connection:c2", "new_page:p2")
        .endsWith("user_adopted:anna");
    // The codec reads small integers back as Integer: values are compared as numbers.
    assertThat(Harness.number(Harness.call(worker, get("anna", "c1", "p1", "connection")))).isEqualTo(1L);
    assertThat(Harness.number(Harness.call(worker, get("anna", "c1", "p1", "user")))).isEqualTo(1L);
    assertThat(Harness.number(Harness.call(worker, get("anna", "c2", "p2", "page")))).isEqualTo(1L);
    PageRow child = worker.registry().pageItems().get("p3").orElseThrow();
    assertThat(child.parentPageId()).isEqualTo("p1");
    assertThat(child.rootPageId()).isEqualTo("p1");
    assertThat(worker.photo().users().get("anna").state()).isEqualTo(UserState.ACTIVE);
    // The wake keeps what it read, set aside, until his stay writes his own (docs/reliability.md).
    assertThat(harness.freezer.readUserParcel("anna")).isEmpty();
    assertThat(harness.freezer.readWokenParcel("anna")).isPresent();
    assertThat(harness.freezer.readConnectionParcel("anna", "c1")).isPresent();
    assertThat(harness.freezer.readConnectionParcel("anna", "c2")).isPresent();
  }

  @Test
  void aBurstOfFiftyCallsOnAFrozenUserMakesOneDiskTrip() throws Exception {
    // Real time here, so that a call that did not wait for the wake would retry the semaphore and
    // make its own disk trip, and be counted, rather than hang on a schedule nobody moves.
    Schedule realTime = Schedule.system();
    worker = harness.builder("w-burst").schedule(realTime).build();
    harness.workers.add(worker);
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    worker.freezeUser("anna").join();
    int before = harness.codec.userReads.get();
    int connectionsBefore = harness.codec.connectionReads.get();
    long tripsBefore = worker.diskTrips();
    java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
    harness.codec.holdUserReads = hold; // the wake stops in the middle of its disk trip

    int burst = 50;
    List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(burst, task -> {
      Thread thread = new Thread(task);
      threads.add(thread);
      return thread;
    });
    try {
      List<Future<Object>> replies = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        replies.add(callers.submit(
            () -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen())));
      }
      // Every call is in, and parked: waiting for the wake (or, were it not waited for, for
      // whatever the call does instead).
      harness.await("every call parked", () -> threads.size() == burst
          && worker.photo().pendingCallCount() == burst
          && threads.stream().allMatch(thread -> thread.getState() == Thread.State.WAITING
              || thread.getState() == Thread.State.TIMED_WAITING));
      assertThat(worker.photo().users().get("anna").state()).isEqualTo(UserState.UNFREEZING);
      hold.countDown();
      List<Object> values = new ArrayList<>();
      for (Future<Object> reply : replies) {
        values.add(reply.get(20, java.util.concurrent.TimeUnit.SECONDS));
      }
      // Every call saw the woken store: counts 2..51, each once.
      assertThat(values).containsExactlyInAnyOrderElementsOf(
          java.util.stream.LongStream.rangeClosed(2, burst + 1).boxed().toList());
    } finally {
      harness.codec.holdUserReads = null;
      hold.countDown(); // never leave the disk thread held, even when an assertion failed
      callers.shutdownNow();
    }
    assertThat(worker.diskTrips() - tripsBefore).as("disk trips").isEqualTo(1);
    assertThat(harness.codec.userReads.get() - before).as("user parcels read").isEqualTo(1);
    assertThat(harness.codec.connectionReads.get() - connectionsBefore).isEqualTo(1);
    harness.await("told", () -> harness.told("w-burst").contains("user_adopted:anna"));
    assertThat(harness.told("w-burst").stream().filter(s -> s.startsWith("user_adopted")))
        .hasSize(1);
    realTime.shutdown();
  }

  @Test
  void aFailedWakeLeavesNoRowAndNoLockAndARetryWorks() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    worker.freezeUser("anna").join();
    Path parcel = harness.freezer.folder("anna").resolve("user.parcel");
    byte[] good = Files.readAllBytes(parcel);
    byte[] torn = java.util.Arrays.copyOf(good, good.length - 3);
    Files.write(parcel, torn);

    assertThatThrownBy(() -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen()))
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.WAKE_FAILED);
          assertThat(e.isRetryable()).isTrue();
        });
    assertThat(worker.registry().userItems().contains("anna")).isFalse();
    assertThat(worker.photo().users()).isEmpty();
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();
    assertThat(harness.told("w1")).doesNotContain("user_adopted:anna");

    Files.write(parcel, good); // the operator repairs it
    assertThat(Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen())).isEqualTo(2L);
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();
  }

  @Test
  void aUserParcelWithoutTheVerdictIsResidueAndIsNeverTouched() throws Exception {
    harness.freezer.tryTakeSemaphore("anna", "elsewhere");
    harness.freezer.writeUserParcel("anna", Map.of("parcel", "user", "store", Map.of("n", Map.of("value", 41L))),
        "elsewhere", "freeze", "g");
    harness.freezer.releaseSemaphore("anna", "elsewhere");
    Path parcel = harness.freezer.folder("anna").resolve("user.parcel");
    byte[] before = Files.readAllBytes(parcel);
    int reads = harness.codec.userReads.get();

    assertThat(Harness.call(worker, increment("anna", "c1", "p1", "user"))).isEqualTo(1L); // born fresh

    assertThat(Files.readAllBytes(parcel)).isEqualTo(before);
    assertThat(harness.codec.userReads.get()).isEqualTo(reads);
    assertThat(harness.told("w1")).doesNotContain("user_adopted:anna");
  }

  @Test
  void aConnectionParcelIsFoundNotFoundOrAlreadyHeld() throws Exception {
    Worker other = harness.worker("w2");
    Harness.call(other, increment("anna", "c1", "p1", "page"));
    Harness.call(other, increment("anna", "c2", "p2", "page"));
    other.freezeUser("anna").join();
    Harness.call(worker, increment("anna", "c9", "p9", "page")); // anna born fresh here: no verdict
    harness.heard("w1").clear();
    // A parcel of a stay is residue to a worker on its own: only his wake reads it.
    int stayReads = harness.codec.connectionReads.get();
    assertThat(Harness.call(worker, increment("anna", "c2", "p2", "page"))).isEqualTo(1L);
    assertThat(harness.codec.connectionReads.get()).isEqualTo(stayReads + 1);
    assertThat(Files.exists(harness.freezer.connectionParcel("anna", "c2"))).isTrue();
    harness.heard("w1").clear();
    handOver("anna", "c1"); // as a login tail writes it

    // Found: c1's parcel, handed over, is adopted by the worker on its own, with its page's store.
    assertThat(Harness.call(worker, increment("anna", "c1", "p1", "page"))).isEqualTo(2L);
    assertThat(harness.told("w1")).startsWith("new_connection:c1", "new_page:p1");
    assertThat(Files.exists(harness.freezer.connectionParcel("anna", "c1"))).isFalse();
    // Not found: a new connection is simply born.
    int reads = harness.codec.connectionReads.get();
    assertThat(Harness.call(worker, increment("anna", "c5", "p5", "page"))).isEqualTo(1L);
    assertThat(harness.codec.connectionReads.get()).isEqualTo(reads);
    // Already held: the live connection wins and its parcel is not read.
    assertThat(Harness.call(worker, increment("anna", "c1", "p1", "page"))).isEqualTo(3L);
    assertThat(harness.codec.connectionReads.get()).isEqualTo(reads);
    // The user parcel, without the verdict, stays as residue.
    assertThat(Files.exists(harness.freezer.folder("anna").resolve("user.parcel"))).isTrue();
  }

  /** Marks the connection parcel of {@code user} as a login tail's hand-over. */
  private void handOver(String user, String connection) throws Exception {
    harness.freezer.tryTakeSemaphore(user, "test");
    try {
      Map<String, Object> parcel = new java.util.LinkedHashMap<>();
      ((Map<?, ?>) harness.freezer.readConnectionParcel(user, connection).orElseThrow())
          .forEach((key, value) -> parcel.put((String) key, value));
      parcel.put(Parcels.HANDED_OVER, true);
      harness.freezer.writeConnectionParcel(user, connection, parcel, "test", "login", "g");
    } finally {
      harness.freezer.releaseSemaphore(user, "test");
    }
  }
}
