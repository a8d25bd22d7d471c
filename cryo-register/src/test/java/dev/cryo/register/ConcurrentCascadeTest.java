package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cascading drops of siblings, one held between its claim and its removal while the other runs
 * whole: the parent still leaves with its last child, exactly once.
 */
class ConcurrentCascadeTest {

  /** Holds the drop of {@code heldPage} in its seam until released. */
  static class HeldRegistry extends RegisterRegistry {
    final String heldPage;
    final CountDownLatch inSeam = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldRegistry(String heldPage) {
      this.heldPage = heldPage;
    }

    @Override
    protected void detachPage(PageRow page) {
      if (page.key().equals(heldPage)) {
        inSeam.countDown();
        try {
          if (!release.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }

  private HeldRegistry held;

  @AfterEach
  void releaseHeld() {
    if (held != null) {
      held.release.countDown();
    }
  }

  private <T> CompletableFuture<T> holdWhile(HeldRegistry registry,
      Function<RegisterRegistry, T> drop) throws InterruptedException {
    held = registry;
    CompletableFuture<T> first = CompletableFuture.supplyAsync(() -> drop.apply(registry));
    assertThat(registry.inSeam.await(10, TimeUnit.SECONDS)).as("the first drop reached its seam")
        .isTrue();
    return first;
  }

  @Test
  void concurrentCascadingConnectionDropsTakeTheUserWithHisLastConnection() throws Exception {
    HeldRegistry registry = new HeldRegistry("p1");
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c2");

    CompletableFuture<ConnectionRow> first = holdWhile(registry, r -> r.dropConnection("c1"));
    // c1 is claimed and still registered: this drop sees two connections at its claim
    assertThat(registry.dropConnection("c2").key()).isEqualTo("c2");
    assertThat(registry.userItems().contains("anna")).isTrue(); // c1 is still his
    registry.release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).key()).isEqualTo("c1");

    assertThat(registry.connectionItems().size()).isZero();
    assertThat(registry.pageItems().size()).isZero();
    assertThat(registry.userItems().contains("anna"))
        .as("the user leaves with his last connection").isFalse();
    assertThat(registry.userItems().size()).isZero();
  }

  @Test
  void concurrentCascadingPageDropsTakeTheConnectionAndTheUserWithTheLastPage() throws Exception {
    HeldRegistry registry = new HeldRegistry("p1");
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1");

    CompletableFuture<PageRow> first = holdWhile(registry, r -> r.dropPage("p1"));
    assertThat(registry.dropPage("p2").key()).isEqualTo("p2");
    assertThat(registry.connectionItems().contains("c1")).isTrue(); // p1 is still its
    registry.release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).key()).isEqualTo("p1");

    assertThat(registry.pageItems().size()).isZero();
    assertThat(registry.connectionItems().contains("c1"))
        .as("the connection leaves with its last page").isFalse();
    assertThat(registry.userItems().contains("anna"))
        .as("the user leaves with his last connection").isFalse();
  }

  @Test
  void aPageDropAndAConnectionDropOfTheLastTwoConnectionsTakeTheUserOnce() throws Exception {
    HeldRegistry registry = new HeldRegistry("p1");
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c2");

    CompletableFuture<PageRow> first = holdWhile(registry, r -> r.dropPage("p1"));
    assertThat(registry.dropConnection("c2").key()).isEqualTo("c2");
    assertThat(registry.userItems().contains("anna")).isTrue();
    registry.release.countDown();
    first.get(10, TimeUnit.SECONDS);

    assertThat(registry.pageItems().size()).isZero();
    assertThat(registry.connectionItems().size()).isZero();
    assertThat(registry.userItems().size()).isZero();
  }

  @Test
  void aNonCascadingDropLastLeavesTheUserAsASerialOrderWould() throws Exception {
    HeldRegistry registry = new HeldRegistry("p1");
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c2");

    // the cascading drop removes first, while c1 is still his: he stays, as if it ran first
    CompletableFuture<ConnectionRow> first =
        holdWhile(registry, r -> r.dropConnection("c1", false));
    registry.dropConnection("c2");
    registry.release.countDown();
    first.get(10, TimeUnit.SECONDS);

    assertThat(registry.connectionItems().size()).isZero();
    assertThat(registry.userItems().contains("anna")).isTrue();
  }

  @Test
  void aFailedSeamLeavesTheUserWithTheConnectionItKept() throws Exception {
    AtomicBoolean failOnce = new AtomicBoolean(true);
    HeldRegistry registry = new HeldRegistry("p1") {
      @Override
      protected void detachPage(PageRow page) {
        super.detachPage(page);
        if (page.key().equals("p1") && failOnce.getAndSet(false)) {
          throw new IllegalStateException("seam failed");
        }
      }
    };
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c2");

    CompletableFuture<ConnectionRow> first = holdWhile(registry, r -> r.dropConnection("c1"));
    registry.dropConnection("c2");
    registry.release.countDown();
    assertThat(first).failsWithin(10, TimeUnit.SECONDS);

    assertThat(registry.connectionItems().contains("c1")).isTrue();
    assertThat(registry.userItems().get("anna")).hasValueSatisfying(
        anna -> assertThat(anna.connections()).containsExactly("c1"));
    registry.dropConnection("c1"); // and a drop now takes him
    assertThat(registry.userItems().size()).isZero();
  }
}
