package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The seams of a registry are an explicit object: a registry runs exactly the seams it was given,
 * says which it has, and a registry without a detach seam drops in one step without locking a
 * page. Nothing is detected from the methods a subclass declares.
 */
class PageSeamsTest {

  private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task);
    thread.setDaemon(true);
    return thread;
  });

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void aRegistryRunsExactlyTheSeamsItWasGivenAndSaysWhichItHas() {
    List<String> events = new CopyOnWriteArrayList<>();
    PageSeams seams = PageSeams.none()
        .withSubscribe(page -> events.add("subscribe " + page.key()))
        .withDetach(page -> {
          assertThat(page.lock().isHeldByCurrentThread()).isTrue();
          events.add("detach " + page.key());
        });
    RegisterRegistry registry = new RegisterRegistry(Clock.systemUTC(), seams) {
      @Override
      protected void detachPage(PageRow page) {
        events.add("the protected seam ran"); // given seams replace the protected ones
      }
    };
    assertThat(registry.seams()).isSameAs(seams);
    assertThat(registry.seams().subscribes()).isTrue();
    assertThat(registry.seams().detaches()).isTrue();
    registry.newPage("p1", "anna", "c1");
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    p1.lock().lock();
    try {
      registry.seams().detach(p1); // the public detach, before copying a store for a parcel
    } finally {
      p1.lock().unlock();
    }
    registry.dropUser("anna");
    assertThat(events).containsExactly("subscribe p1", "detach p1", "detach p1");
  }

  @Test
  void withoutADetachSeamADropLocksNoPageEvenWhenASubclassDeclaresOne() throws Exception {
    RegisterRegistry plain = new RegisterRegistry();
    RegisterRegistry declaresButSaysNone = new RegisterRegistry(Clock.systemUTC(),
        PageSeams.none()) {
      @Override
      protected void detachPage(PageRow page) {
        throw new AssertionError("not a seam of this registry");
      }
    };
    for (RegisterRegistry registry : List.of(plain, declaresButSaysNone)) {
      assertThat(registry.seams().detaches()).isFalse();
      assertThat(registry.seams().subscribes()).isFalse();
      registry.newPage("p1", "anna", "c1");
      PageRow p1 = registry.pageItems().get("p1").orElseThrow();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<?> holder = threads.submit(() -> {
        p1.lock().lock(); // another thread is inside p1's store
        try {
          held.countDown();
          return release.await(20, TimeUnit.SECONDS);
        } finally {
          p1.lock().unlock();
        }
      });
      try {
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        Future<UserRow> drop = threads.submit(() -> registry.dropUser("anna"));
        assertThat(drop.get(10, TimeUnit.SECONDS).key()).isEqualTo("anna"); // did not wait for p1
      } finally {
        release.countDown();
      }
      holder.get(10, TimeUnit.SECONDS);
      assertThat(registry.userItems().size()).isZero();
    }
  }

  @Test
  void aSubclassBuiltWithoutSeamsHasItsProtectedOnesWhatEverItOverrides() {
    List<String> events = new CopyOnWriteArrayList<>();
    RegisterRegistry subscribesOnly = new RegisterRegistry() {
      @Override
      protected void subscribePageStore(PageRow page) {
        events.add("subscribe " + page.key());
      }
    };
    assertThat(subscribesOnly.seams().subscribes()).isTrue();
    assertThat(subscribesOnly.seams().detaches()).isTrue(); // its (empty) detachPage, said plainly
    subscribesOnly.newPage("p1", "anna", "c1");
    subscribesOnly.dropPage("p1");
    assertThat(events).containsExactly("subscribe p1");
    assertThat(new RegisterRegistry().seams()).isSameAs(PageSeams.none());
  }

  @Test
  void seamsAreImmutableAndRefuseNull() {
    PageSeams none = PageSeams.none();
    PageSeams detaching = none.withDetach(page -> { });
    assertThat(none.detaches()).isFalse();
    assertThat(detaching.detaches()).isTrue();
    assertThat(detaching.subscribes()).isFalse();
    assertThat(PageSeams.of(null, null)).isSameAs(none);
    assertThat(detaching.toString()).isEqualTo("PageSeams[detach]");
    assertThat(none.toString()).isEqualTo("PageSeams[none]");
    assertThatThrownBy(() -> none.withSubscribe(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new RegisterRegistry(Clock.systemUTC(), null))
        .isInstanceOf(NullPointerException.class);
  }
}
