package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drops ordered from above while a user is in the middle of a departure or a wake wait for it
 * (bounded) and then apply to what it left: they never resurrect a connection at the next wake
 * nor turn a freeze into a half failure. An expiry order is never silently turned into a freeze.
 */
class DropsDuringDeparturesTest {

  @TempDir Path temp;
  Harness harness;
  Worker worker;
  final CountDownLatch resumeWrite = new CountDownLatch(1);
  final ExecutorService threads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task);
    thread.setDaemon(true);
    return thread;
  });

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
  }

  @AfterEach
  void tearDown() {
    harness.codec.holdUserWrites = null;
    resumeWrite.countDown();
    threads.shutdownNow();
    harness.close();
  }

  /** Freezes anna and holds her freeze in the middle of writing her parcels. */
  private CompletableFuture<FreezeOutcome> freezeHeldMidWrite() throws Exception {
    harness.codec.holdUserWrites = resumeWrite;
    CompletableFuture<FreezeOutcome> freeze = worker.freezeUser("anna");
    assertThat(harness.codec.userWriting.await(10, TimeUnit.SECONDS)).as("mid-write").isTrue();
    return freeze;
  }

  /** Runs {@code order} on another thread and waits until it is parked or done. */
  private <T> Future<T> whileHeld(Callable<T> order) {
    List<Thread> thread = new CopyOnWriteArrayList<>();
    Future<T> future = threads.submit(() -> {
      thread.add(Thread.currentThread());
      return order.call();
    });
    harness.await("the order parked, or done", () -> future.isDone() || (!thread.isEmpty()
        && (thread.get(0).getState() == Thread.State.WAITING
            || thread.get(0).getState() == Thread.State.TIMED_WAITING)));
    return future;
  }

  private static Throwable failureOf(Future<?> future) throws Exception {
    try {
      future.get(10, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void aConnectionDroppedDuringAFreezeIsNeverResurrectedByTheNextWake() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c2", "p2", "page"));
    CompletableFuture<FreezeOutcome> freeze = freezeHeldMidWrite();
    Future<Object> drop = whileHeld(() -> {
      worker.dropConnection("c1");
      return null;
    });
    resumeWrite.countDown();
    harness.codec.holdUserWrites = null;
    assertThat(freeze.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.FROZEN);
    Throwable refused = failureOf(drop);

    Worker other = harness.worker("w2");
    Harness.call(other, increment("anna", "c2", "p2", "page").withUserFrozen());
    boolean dropTold = harness.told("w1").contains("drop_connection:c1");
    boolean c1Back = other.registry().connectionItems().contains("c1");
    assertThat(dropTold && c1Back).as("c1 announced dropped, then woken again").isFalse();
    assertThat(dropTold).as("the drop waited for the freeze, and found him frozen").isFalse();
    assertThat(refused).isInstanceOfSatisfying(WorkerException.class, e -> {
      assertThat(e.reason()).isEqualTo(RefusalReason.USER_LEFT_FROZEN);
      assertThat(e.where()).isEqualTo(WorkerException.Where.FROZEN);
      assertThat(e.isRetryable()).isTrue();
    });
    assertThat(c1Back).as("kept with him, as nothing said it was dropped").isTrue();
  }

  @Test
  void droppingTheLastConnectionDuringAFreezeDoesNotMakeItAHalfFailure() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    CompletableFuture<FreezeOutcome> freeze = freezeHeldMidWrite();
    Future<Object> drop = whileHeld(() -> {
      worker.dropConnection("c1");
      return null;
    });
    resumeWrite.countDown();
    harness.codec.holdUserWrites = null;

    Throwable freezeFailure = failureOf(freeze);
    failureOf(drop);
    assertThat(freezeFailure).as("the freeze").isNull();
    assertThat(worker.freezeFailures()).isZero();
    assertThat(harness.told("w1")).contains("user_frozen:anna").doesNotContain("drop_user:anna");
    assertThat(harness.freezer.folderKeys()).containsExactly("anna");
  }

  @Test
  void aDropOfAUserBeingWokenWaitsForTheWakeThenDropsHim() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    worker.freezeUser("anna").join();
    CountDownLatch holdRead = new CountDownLatch(1);
    harness.codec.holdUserReads = holdRead;
    Future<Object> wake = threads.submit(
        () -> Harness.call(worker, increment("anna", "c1", "p1", "page").withUserFrozen()));
    try {
      harness.await("anna unfreezing", () -> worker.photo().users().containsKey("anna"));
      Future<Boolean> drop = whileHeld(() -> worker.dropUser("anna"));
      assertThat(drop).as("waiting for the wake").isNotDone();
      holdRead.countDown();
      assertThat(drop.get(10, TimeUnit.SECONDS)).as("dropped once awake").isTrue();
      // The waking call is in flight, and a drop does not wait for calls: it is served before
      // the drop (2), or after it, its page born afresh by the test's arrival naming it (1); or
      // its page went with the drop (404); or the drop came in the middle, after its handler
      // wrote (503: kept, not run again).
      try {
        assertThat(number(wake.get(10, TimeUnit.SECONDS))).isBetween(1L, 2L);
      } catch (java.util.concurrent.ExecutionException e) {
        // Or refused before its handler ran, retryably: the commander routes such a call again.
        assertThat(e.getCause()).satisfiesAnyOf(
            cause -> assertThat(cause).isInstanceOfSatisfying(Harness.Refused.class, refused ->
                assertThat(refused.getMessage()).satisfiesAnyOf(
                    answer -> assertThat(answer).startsWith("404").contains("unknown_page"),
                    answer -> assertThat(answer).startsWith("503").contains("interrupted"))),
            cause -> assertThat(cause).isInstanceOfSatisfying(WorkerException.class,
                refusal -> assertThat(refusal.isRetryable()).as(refusal.getMessage()).isTrue()));
      }
    } finally {
      harness.codec.holdUserReads = null;
      holdRead.countDown();
    }
    List<String> told = harness.told("w1");
    assertThat(told).contains("user_adopted:anna", "drop_user:anna");
    assertThat(told.indexOf("user_adopted:anna")).as("adopted, then dropped")
        .isLessThan(told.lastIndexOf("drop_user:anna"));
  }

  @Test
  void anExpiryPlannedWhileAFreezeIsClaimedOrUnderWayIsHonoured() throws Exception {
    // anna: a freeze claimed, waiting for her call, when the plan says she expires
    RequestSlot annaCall = worker.openRequest(increment("anna", "c1", "p1", "page").arrival());
    CompletableFuture<FreezeOutcome> annaFreeze = worker.freezeUser("anna");
    worker.planTransfers(Map.of("anna", TransferFlag.EXPIRY));
    long trips = worker.diskTrips();
    annaCall.close();
    assertThat(annaFreeze.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.DROPPED);
    assertThat(worker.diskTrips()).as("expired as she left: nothing written").isEqualTo(trips);

    // bob: his freeze is writing when the plan says he expires
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    harness.codec.holdUserWrites = resumeWrite;
    CompletableFuture<FreezeOutcome> bobFreeze = worker.freezeUser("bob");
    assertThat(harness.codec.userWriting.await(10, TimeUnit.SECONDS)).isTrue();
    worker.planTransfers(Map.of("bob", TransferFlag.EXPIRY));
    resumeWrite.countDown();
    harness.codec.holdUserWrites = null;
    assertThat(bobFreeze.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.DROPPED);

    assertThat(harness.told("w1")).contains("drop_user:anna", "drop_user:bob")
        .doesNotContain("user_frozen:anna", "user_frozen:bob");
    assertThat(harness.freezer.folderKeys()).as("nothing written stays").isEmpty();
  }

  @Test
  void aQuitKeepsTheExpiriesOfItsUsers() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("bob", "c2", "p2", "page"));
    worker.planTransfers(Map.of("anna", TransferFlag.EXPIRY));
    CompletableFuture<QuitReport> report = worker.quit();
    assertThat(worker.photo().users().get("anna").transferFlag()).isEqualTo(TransferFlag.EXPIRY);
    harness.schedule.advance(Duration.ofSeconds(2));
    harness.driveRetries(report);
    QuitReport done = report.get(10, TimeUnit.SECONDS);
    assertThat(done.dropped()).isEqualTo(1);
    assertThat(done.frozen()).isEqualTo(1);
    assertThat(harness.freezer.folderKeys()).containsExactly("bob");
  }

  @Test
  void aFreezeThatFailsDoesNotConsumeAnExpiryPlannedMeanwhile() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    CompletableFuture<FreezeOutcome> freeze = worker.freezeUser("anna"); // retrying, in vain
    worker.planTransfers(Map.of("anna", TransferFlag.EXPIRY));
    harness.driveRetries(freeze);
    assertThat(failureOf(freeze)).isInstanceOfSatisfying(WorkerException.class,
        e -> assertThat(e.reason()).isEqualTo(RefusalReason.SEMAPHORE_TIMEOUT));
    assertThat(worker.photo().users().get("anna").transferFlag()).as("still ordered")
        .isEqualTo(TransferFlag.EXPIRY);

    harness.schedule.advance(Duration.ofSeconds(2)); // the plan's gate
    harness.await("anna expired, and told", () -> !worker.registry().userItems().contains("anna")
        && harness.told("w1").contains("drop_user:anna")); // the registry empties before telling
    assertThat(harness.told("w1")).endsWith("drop_user:anna");
    harness.freezer.releaseSemaphore("anna", "somebody else");
    assertThat(harness.freezer.folderKeys()).isEmpty();
  }

  /**
   * A call cut by a quit opening a page while its user's freeze writes: refused, so that no page
   * is announced born that the freeze's {@code drop_pages} does not name.
   */
  @Test
  void aCutCallCannotOpenAPageUnderItsUsersFreeze() throws Exception {
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    CountDownLatch open = new CountDownLatch(1);
    Future<Object> straggler = threads.submit(() -> Harness.inCall(worker,
        increment("anna", "c1", "p1", "page"), host -> {
          try {
            assertThat(open.await(20, TimeUnit.SECONDS)).isTrue();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          host.newPage("p9", Map.of());
          return "opened";
        }));
    harness.await("the straggler's call open", () -> worker.photo().pendingCallCount() == 1);
    harness.codec.holdUserWrites = resumeWrite;
    CompletableFuture<QuitReport> report = worker.quit();
    harness.schedule.advance(Duration.ofSeconds(2)); // the gate: anna is waited for
    harness.schedule.advance(Duration.ofSeconds(5)); // the grace: her call is cut
    assertThat(harness.codec.userWriting.await(10, TimeUnit.SECONDS)).as("mid-write").isTrue();
    open.countDown();
    Throwable refused = failureOf(straggler);
    resumeWrite.countDown();
    harness.codec.holdUserWrites = null;
    harness.driveRetries(report);
    assertThat(report.get(10, TimeUnit.SECONDS).frozen()).isEqualTo(1);

    assertThat(refused).isInstanceOfSatisfying(WorkerException.class,
        e -> assertThat(e.reason()).isEqualTo(RefusalReason.USER_LEFT_FROZEN));
    assertThat(harness.told("w1")).doesNotContain("new_page:p9").contains("drop_pages:p1");
  }
}
