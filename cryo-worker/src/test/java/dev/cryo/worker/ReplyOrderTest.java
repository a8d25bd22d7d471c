package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reply never overtakes the announcements its call caused, even when another thread is in the
 * middle of delivering (the listener is slow), and a refusal says where the user went.
 */
class ReplyOrderTest {

  @TempDir Path temp;
  Harness harness;
  Worker worker;
  /** What the listener heard, as "kind:keys", in delivery order. */
  final List<String> heard = new CopyOnWriteArrayList<>();
  /** Set to a page id: the delivery of its new_page blocks until {@link #release}. */
  volatile String blockOn;
  final CountDownLatch blocked = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);
  final ExecutorService threads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task);
    thread.setDaemon(true);
    return thread;
  });

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.builder("w1").listener(this::slowListener).build();
    harness.workers.add(worker);
  }

  @AfterEach
  void tearDown() {
    release.countDown();
    threads.shutdownNow();
    harness.close();
  }

  private void slowListener(Announcement announcement) {
    heard.add(announcement.kind().code() + ":" + String.join(",", announcement.keys()));
    if (announcement.kind() == AnnouncementKind.NEW_PAGE
        && announcement.keys().get(0).equals(blockOn)) {
      blocked.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Another thread delivers, and is stuck in the listener on bob's new page p-block. */
  private Future<Object> blockTheListener() throws Exception {
    blockOn = "p-block";
    Future<Object> bob = threads.submit(() -> worker.call(increment("bob", "c-bob", "p-block", "page")));
    assertThat(blocked.await(10, TimeUnit.SECONDS)).as("the listener is blocked").isTrue();
    return bob;
  }

  private static boolean waitingOrDone(List<Thread> thread, Future<?> future) {
    return future.isDone() || (!thread.isEmpty() && (thread.get(0).getState() == Thread.State.WAITING
        || thread.get(0).getState() == Thread.State.TIMED_WAITING));
  }

  @Test
  void aCallReturnsOnlyOnceTheBirthsItCausedWereDelivered() throws Exception {
    Future<Object> bob = blockTheListener();

    List<Thread> caller = new CopyOnWriteArrayList<>();
    Future<List<String>> anna = threads.submit(() -> {
      caller.add(Thread.currentThread());
      worker.call(increment("anna", "c1", "p1", "page"));
      return List.copyOf(heard); // what the commander had folded when the reply left
    });
    harness.await("anna's call waiting for the delivery, or returned",
        () -> waitingOrDone(caller, anna));
    release.countDown();

    assertThat(anna.get(10, TimeUnit.SECONDS)).as("heard when anna's reply left")
        .contains("new_user:anna", "new_connection:c1", "new_page:p1");
    assertThat(bob.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
    assertThat(worker.announcementWatermark()).isEqualTo(heard.size());
  }

  @Test
  void aUserLeftRefusalReachesTheCallerOnlyAfterUserFrozenWasDeliveredAndSaysFrozen()
      throws Exception {
    worker.call(increment("anna", "c1", "p1", "page"));
    assertThat(harness.freezer.tryTakeSemaphore("anna", "somebody else")).isTrue();
    CompletableFuture<FreezeOutcome> freeze = worker.freezeUser("anna"); // leaving, retrying
    harness.await("the first try failed", () -> harness.schedule.pending() > 0);
    List<Thread> caller = new CopyOnWriteArrayList<>();
    Future<Object> refused = threads.submit(() -> {
      caller.add(Thread.currentThread());
      try {
        worker.call(increment("anna", "c1", "p1", "page")); // no verdict: waits for the freeze
        return "served";
      } catch (WorkerException e) {
        return List.of(e, List.copyOf(heard));
      }
    });
    harness.await("anna's call waiting for her freeze", () -> waitingOrDone(caller, refused));
    Future<Object> bob = blockTheListener();

    harness.freezer.releaseSemaphore("anna", "somebody else");
    for (int step = 0; step < 200 && worker.registry().userItems().contains("anna"); step++) {
      harness.schedule.advance(Duration.ofMillis(50));
      harness.await("a retry ran", () -> true);
    }
    harness.await("anna frozen in memory", () -> !worker.registry().userItems().contains("anna"));
    harness.await("the refusal waiting for the delivery, or thrown",
        () -> waitingOrDone(caller, refused));
    release.countDown();

    List<?> outcome = (List<?>) refused.get(10, TimeUnit.SECONDS);
    WorkerException e = (WorkerException) outcome.get(0);
    assertThat(e.reason()).isEqualTo(RefusalReason.USER_LEFT_FROZEN);
    assertThat(e.where()).as("where he went").isEqualTo(WorkerException.Where.FROZEN);
    assertThat(e.getMessage()).contains("with the verdict frozen");
    @SuppressWarnings("unchecked")
    List<String> heardThen = (List<String>) outcome.get(1);
    assertThat(heardThen).as("heard when the refusal left").contains("user_frozen:anna");
    assertThat(freeze.get(10, TimeUnit.SECONDS)).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(bob.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
  }

  @Test
  void aCallWhoseOwnerLeftByTheLoginTailIsToldHeIsMovingNotFrozen() throws Exception {
    worker.call(increment(null, "c1", "p1", "user")); // guest_c1, alone on c1
    assertThat(harness.freezer.tryTakeSemaphore("carl", "somebody else")).isTrue();
    harness.whereabouts.put("carl", IdentityLocator.Location.on("w2")); // so: the login tail
    CompletableFuture<LoginOutcome> login = worker.login("c1", "carl"); // the tail, retrying
    harness.await("the first try failed", () -> harness.schedule.pending() > 0);
    List<Thread> caller = new CopyOnWriteArrayList<>();
    Future<Object> refused = threads.submit(() -> {
      caller.add(Thread.currentThread());
      try {
        return worker.call(increment("guest_c1", "c1", "p1", "user"));
      } catch (WorkerException e) {
        return e;
      }
    });
    harness.await("the call waiting for the tail", () -> waitingOrDone(caller, refused));
    harness.freezer.releaseSemaphore("carl", "somebody else");
    harness.driveRetries(login);
    assertThat(login.get(10, TimeUnit.SECONDS)).isEqualTo(LoginOutcome.HANDED_OVER);

    assertThat(refused.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(WorkerException.class,
        e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.USER_LEFT_MOVING);
          assertThat(e.where()).isEqualTo(WorkerException.Where.MOVING);
          assertThat(e.getMessage()).doesNotContain("verdict frozen");
        });
    assertThat(heard).contains("login:c1", "drop_user:guest_c1").doesNotContain("user_frozen:guest_c1");
  }

  @Test
  void onlyAUserLeftRefusalSaysWhere() {
    WorkerException other = new WorkerException(RefusalReason.WAKE_FAILED, "anna", "x");
    assertThat(other.where()).isNull();
    assertThat(WorkerException.Where.FROZEN.code()).isEqualTo("frozen");
    assertThat(WorkerException.Where.MOVING.code()).isEqualTo("moving");
  }
}
