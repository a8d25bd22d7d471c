package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
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
 * The worker's one lock order — a user's tenant lock before any row lock, and no tenant lock
 * taken from inside a store action — with a registry whose detach seam makes every drop lock the
 * pages it takes. Every wait here is bounded: a deadlock fails the test instead of hanging it.
 */
class LockOrderTest {

  /** A registry with a detach seam: its drops lock each page they take while the seam runs. */
  static final class DetachingRegistry extends RegisterRegistry {
    final List<String> detached = new CopyOnWriteArrayList<>();

    DetachingRegistry(Clock clock) {
      super(clock);
    }

    @Override
    protected void detachPage(PageRow page) {
      detached.add(page.pageId());
    }
  }

  @TempDir Path temp;
  Harness harness;
  Worker worker;
  DetachingRegistry registry;
  final CountDownLatch inside = new CountDownLatch(1);
  final CountDownLatch go = new CountDownLatch(1);
  final ExecutorService threads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task);
    thread.setDaemon(true); // a deadlocked thread of a failed run must not keep the JVM
    return thread;
  });

  /** "inside": inside the page's store, waits for {@link #go}, then does what the call says. */
  private Object handle(CallContext context) throws Exception {
    if (!context.call().operation().equals("inside")) {
      return new ExampleApplication().handle(context);
    }
    return context.withPageStore(store -> {
      inside.countDown();
      try {
        assertThat(go.await(20, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      if (context.call().arguments().containsKey("login")) {
        context.login((String) context.call().arguments().get("login"));
      } else {
        context.newPage("p2", Map.of());
      }
      return "done";
    });
  }

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    registry = new DetachingRegistry(harness.schedule.clock());
    worker = harness.builder("w1").registry(registry).application(this::handle).build();
    harness.workers.add(worker);
  }

  @AfterEach
  void tearDown() {
    go.countDown();
    threads.shutdownNow();
    harness.close();
  }

  private void raceADropAgainst(Call inside) throws Exception {
    worker.call(Harness.increment(inside.user(), "c1", "p1", "page"));
    Future<Object> handler = threads.submit(() -> worker.call(inside));
    assertThat(this.inside.await(10, TimeUnit.SECONDS)).as("the handler holds p1's lock").isTrue();
    List<Thread> dropper = new CopyOnWriteArrayList<>();
    Future<Boolean> drop = threads.submit(() -> {
      dropper.add(Thread.currentThread());
      return worker.dropUser(inside.user() == null ? "guest_c1" : inside.user());
    });
    harness.await("the drop waiting for p1", () -> !dropper.isEmpty()
        && (dropper.get(0).getState() == Thread.State.WAITING
            || dropper.get(0).getState() == Thread.State.TIMED_WAITING));
    go.countDown(); // the handler now asks for a lifecycle operation, still inside p1's store

    Throwable refused = null;
    try {
      handler.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      refused = e.getCause();
    }
    assertThat(refused).as("the handler's lifecycle call from inside a store action")
        .isInstanceOfSatisfying(WorkerException.class, e -> {
          assertThat(e.reason()).isEqualTo(RefusalReason.LOCK_ORDER);
          assertThat(e.getMessage()).contains("store action").contains("nothing was changed");
        });
    assertThat(drop.get(10, TimeUnit.SECONDS)).as("the drop went through").isTrue();
    assertThat(registry.detached).contains("p1");
    assertThat(worker.registry().userItems().size()).isZero();
    assertThat(worker.registry().pageItems().contains("p2")).isFalse();
  }

  @Test
  void aHandlerOpeningAPageFromInsideAPageStoreIsRefusedWhileADropWaitsForThatPage()
      throws Exception {
    raceADropAgainst(Call.rpc("anna", "c1", "p1", "inside"));
  }

  @Test
  void aHandlerLoggingInFromInsideAPageStoreIsRefusedWhileADropWaitsForThatPage()
      throws Exception {
    raceADropAgainst(Call.rpc(null, "c1", "p1", "inside").withArguments(Map.of("login", "carl")));
  }

  @Test
  void outsideAStoreActionTheSameOperationsWork() {
    worker.call(Harness.increment("anna", "c1", "p1", "page"));
    CallContextProbe.run(worker, Call.rpc("anna", "c1", "p1", "x"), context -> {
      context.newPage("p3", Map.of());
      return null;
    });
    assertThat(worker.registry().pageItems().contains("p3")).isTrue();
    assertThat(worker.dropUser("anna")).isTrue();
    assertThat(registry.detached).containsExactlyInAnyOrder("p1", "p3");
  }

  /**
   * A login whose connection's row is held by a call's store action waits for it outside every
   * user lock: the photo, which takes each user's lock, is not held up meanwhile.
   */
  @Test
  void aLoginWaitingForABusyRowHoldsNoUserLockMeanwhile() throws Exception {
    worker.call(Harness.increment(null, "c1", "p1", "page"));
    Future<Object> holder = threads.submit(() -> CallContextProbe.run(worker,
        Call.rpc(null, "c1", "p1", "x"), context -> context.withConnectionStore(store -> {
          inside.countDown();
          try {
            return go.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        })));
    assertThat(inside.await(10, TimeUnit.SECONDS)).as("c1's row is held").isTrue();
    List<Thread> loginThread = new CopyOnWriteArrayList<>();
    Future<LoginOutcome> login = threads.submit(() -> {
      loginThread.add(Thread.currentThread());
      return worker.login("c1", "anna").join();
    });
    harness.await("the login waiting for the row", () -> !loginThread.isEmpty()
        && (loginThread.get(0).getState() == Thread.State.WAITING
            || loginThread.get(0).getState() == Thread.State.TIMED_WAITING));

    Future<Photo> photo = threads.submit(worker::photo);
    assertThat(photo.get(10, TimeUnit.SECONDS).users()).containsKey("guest_c1");
    go.countDown();
    assertThat(login.get(10, TimeUnit.SECONDS)).isEqualTo(LoginOutcome.RELABELLED);
    assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo(true);
    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user()).isEqualTo("anna");
  }

  /**
   * A cut straggler enters a page's store after the freeze read it and before the freeze empties
   * memory, which (with a detach seam) locks that page: the freeze takes its parcels back, gives
   * the semaphore and the disk thread back, tries again, and past the grace fails, counted; the
   * user stays alive as he was, nothing is announced, nothing is left in the freezer.
   */
  @Test
  void aPageLockedBetweenTheSnapshotAndTheDropUndoesTheFreezeInsteadOfWaiting() throws Exception {
    worker.call(Harness.increment("anna", "c1", "p1", "page"));
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch resumeWrite = new CountDownLatch(1);
    Future<Object> straggler = threads.submit(() -> CallContextProbe.run(worker,
        Harness.increment("anna", "c1", "p1", "page"), context -> {
          assertThat(harness.codec.userWriting.await(20, TimeUnit.SECONDS)).isTrue();
          return context.withPageStore(store -> {
            inside.countDown();
            try {
              return release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          });
        }));
    harness.await("the straggler's call open", () -> worker.photo().pendingCallCount() == 1);
    harness.codec.holdUserWrites = resumeWrite;
    try {
      java.util.concurrent.CompletableFuture<QuitReport> report = worker.quit();
      harness.schedule.advance(java.time.Duration.ofSeconds(2)); // the gate: anna is waited for
      harness.schedule.advance(java.time.Duration.ofSeconds(5)); // the grace: her call is cut
      assertThat(inside.await(10, TimeUnit.SECONDS)).as("the straggler holds p1").isTrue();
      resumeWrite.countDown(); // the parcels are written; emptying memory finds p1 busy
      harness.codec.holdUserWrites = null;
      harness.driveRetries(report);

      QuitReport done = report.get(10, TimeUnit.SECONDS);
      assertThat(done.failed()).isEqualTo(1);
      assertThat(done.cut()).isEqualTo(1);
      assertThat(done.frozen()).isZero();
      assertThat(worker.registry().userItems().contains("anna")).as("alive as she was").isTrue();
      assertThat(harness.freezer.folderKeys()).as("her parcels taken back").isEmpty();
      assertThat(harness.told("w1")).doesNotContain("user_frozen:anna");
      assertThat(registry.detached).isEmpty();
    } finally {
      harness.codec.holdUserWrites = null;
      resumeWrite.countDown();
      release.countDown();
    }
    assertThat(straggler.get(10, TimeUnit.SECONDS)).isEqualTo(true);
  }
}
