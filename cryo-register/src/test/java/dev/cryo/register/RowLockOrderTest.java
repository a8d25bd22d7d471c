package dev.cryo.register;

import static dev.cryo.register.RegisterTest.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cryo.register.RegisterException.Reason;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one lock order of the chain — a page, then its connection, then its user; never two rows of
 * one level — enforced by every row lock and every lifecycle call, with threads that hold row
 * locks. Every wait is bounded: a deadlock fails the test instead of hanging the build.
 */
class RowLockOrderTest {

  /** A registry with a detach seam: its drops lock each page they take while the seam runs. */
  static final class DetachingRegistry extends RegisterRegistry {
    final List<String> detached = new CopyOnWriteArrayList<>();

    @Override
    protected void detachPage(PageRow page) {
      detached.add(page.key());
    }
  }

  private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task);
    thread.setDaemon(true); // a deadlocked thread of a failed run must not keep the JVM
    return thread;
  });

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  /** Runs {@code action} on a pool thread holding {@code held}, once every party holds its own. */
  private <T> Future<T> holding(ReentrantLock held, CyclicBarrier together, Callable<T> action) {
    return threads.submit(() -> {
      held.lock();
      try {
        together.await(10, TimeUnit.SECONDS);
        return action.call();
      } finally {
        held.unlock();
      }
    });
  }

  /** What {@code future} threw, within a bound that only a deadlock reaches. */
  private static Throwable failureOf(Future<?> future) throws InterruptedException {
    try {
      future.get(20, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return fail("no answer within 20 s: the threads deadlocked");
    }
  }

  private static void assertLockOrder(Throwable thrown) {
    assertThat(thrown).isInstanceOf(RegisterException.class);
    assertThat(((RegisterException) thrown).reason()).isEqualTo(Reason.LOCK_ORDER);
  }

  @Test
  void twoTabsEachDroppingTheOthersPageFromInsideItsOwnStoreDoNotDeadlock() throws Exception {
    DetachingRegistry registry = new DetachingRegistry();
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1");
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    PageRow p2 = registry.pageItems().get("p2").orElseThrow();
    Map<String, Object> before = ChainInvariants.picture(registry);
    CyclicBarrier together = new CyclicBarrier(2);
    Future<PageRow> first = holding(p1.lock(), together, () -> registry.dropPage("p2"));
    Future<PageRow> second = holding(p2.lock(), together, () -> registry.dropPage("p1"));
    assertLockOrder(failureOf(first)); // each would wait for the other's page while holding its own
    assertLockOrder(failureOf(second));
    assertThat(registry.detached).isEmpty();
    assertThat(ChainInvariants.picture(registry)).isEqualTo(before); // nothing was changed
    assertThat(ChainInvariants.violations(registry)).isEmpty();
    registry.dropPage("p2"); // no longer refused, and not left marked as being dropped
    registry.dropPage("p1");
    assertThat(registry.detached).containsExactly("p2", "p1");
    assertThat(registry.userItems().size()).isZero();
  }

  @Test
  void aFieldWriteBelowAHeldConnectionIsRefusedInsteadOfDeadlockingWithThePagesOwnCall()
      throws Exception {
    RegisterRegistry registry = new RegisterRegistry();
    registry.newPage("p1", "anna", "c1");
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    ConnectionRow c1 = registry.connectionItems().get("c1").orElseThrow();
    CyclicBarrier together = new CyclicBarrier(2);
    // The connection's holder writes its page; the page's own call writes its connection (upwards).
    Future<PageRow> downwards = holding(c1.lock(), together,
        () -> registry.updatePage("p1", Map.of("title", "from the connection")));
    Future<Void> upwards = holding(p1.lock(), together, () -> {
      c1.set("seen", "from the page");
      return null;
    });
    assertLockOrder(failureOf(downwards));
    assertThat(failureOf(upwards)).isNull();
    assertThat(p1.has("title")).isFalse();
    assertThat(c1.get("seen")).isEqualTo("from the page");
  }

  @Test
  void everyWaitingRowLockRefusesARowOfItsLevelOrAboveAndTryLockNeverWaits() {
    RegisterRegistry registry = new RegisterRegistry();
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "bob", "c2");
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    PageRow p2 = registry.pageItems().get("p2").orElseThrow();
    ConnectionRow c1 = registry.connectionItems().get("c1").orElseThrow();
    ConnectionRow c2 = registry.connectionItems().get("c2").orElseThrow();
    UserRow anna = registry.userItems().get("anna").orElseThrow();
    UserRow bob = registry.userItems().get("bob").orElseThrow();
    p1.lock().lock(); // upwards: page, connection, user
    c1.lock().lock();
    anna.lock().lock();
    try {
      anna.lock().lock(); // re-entry is never refused
      anna.lock().unlock();
      expect(() -> bob.lock().lock(), Reason.LOCK_ORDER); // two users
      expect(() -> c2.lock().lock(), Reason.LOCK_ORDER); // a connection under a user
      expect(() -> p2.lock().lock(), Reason.LOCK_ORDER); // a page under everything
      expect(() -> p2.set("title", "x"), Reason.LOCK_ORDER); // a write takes the row's lock
      assertThat(p2.has("title")).isFalse();
      assertThat(p2.lock().tryLock()).isTrue(); // a try never waits: never refused
      p2.lock().unlock();
    } finally {
      anna.lock().unlock();
      c1.lock().unlock();
      p1.lock().unlock();
    }
    p2.lock().lock(); // everything released: the counts followed the releases
    try {
      c1.set("seen", 1); // any connection above a page
      bob.lock().lock();
      bob.lock().unlock();
      expect(() -> p1.lock().lock(), Reason.LOCK_ORDER); // never two pages
    } finally {
      p2.lock().unlock();
    }
    assertThat(p2.lock().isHeldByCurrentThread()).isFalse();
  }

  @Test
  void aPagesOwnCallMayDropItsOwnPageButNotATreeHoldingAnotherPage() {
    DetachingRegistry registry = new DetachingRegistry();
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1");
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    Map<String, Object> before = ChainInvariants.picture(registry);
    p1.lock().lock();
    try {
      expect(() -> registry.dropConnection("c1"), Reason.LOCK_ORDER); // would wait for p2
      expect(() -> registry.dropUser("anna"), Reason.LOCK_ORDER);
      assertThat(ChainInvariants.picture(registry)).isEqualTo(before);
      registry.dropPage("p1"); // its own page: re-entrant
    } finally {
      p1.lock().unlock();
    }
    assertThat(registry.detached).containsExactly("p1");
    assertThat(registry.pageItems().keys()).containsExactly("p2");
  }
}
