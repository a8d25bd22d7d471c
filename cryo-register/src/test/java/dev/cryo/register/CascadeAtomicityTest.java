package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Births and cascades are single steps: a consistent view of the registry — any reader's — never
 * shows a tree half built or half demolished, with or without seams running between a demolition's
 * claim and its removal.
 */
class CascadeAtomicityTest {

  private static final int USERS = 200;
  private static final int CONNECTIONS_PER_USER = 2;
  private static final int PAGES_PER_CONNECTION = 5;

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void dropUserTakesTheWholeTreeInOneStep(boolean withSeams) throws Exception {
    RegisterRegistry registry = withSeams ? new ChainPropertiesTest.SeamRegistry() : new RegisterRegistry();
    for (int u = 0; u < USERS; u++) {
      for (int c = 0; c < CONNECTIONS_PER_USER; c++) {
        for (int p = 0; p < PAGES_PER_CONNECTION; p++) {
          registry.newPage("p" + u + "." + c + "." + p, "u" + u, "c" + u + "." + c);
        }
      }
    }
    List<String> seen = watch(registry, counts -> {
      int users = counts[0];
      int connections = counts[1];
      int pages = counts[2];
      return connections == users * CONNECTIONS_PER_USER
          && pages == users * CONNECTIONS_PER_USER * PAGES_PER_CONNECTION;
    }, () -> {
      List<Thread> droppers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int first = t;
        droppers.add(Thread.ofPlatform().start(() -> {
          for (int u = first; u < USERS; u += 2) {
            registry.dropUser("u" + u);
          }
        }));
      }
      join(droppers);
    });
    assertThat(seen).isEmpty();
    assertThat(registry.pageItems().size()).isZero();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void newPageBringsItsChainIntoBeingInOneStep(boolean withSeams) throws Exception {
    RegisterRegistry registry = withSeams ? new ChainPropertiesTest.SeamRegistry() : new RegisterRegistry();
    List<String> seen = watch(registry,
        counts -> counts[0] == counts[1] && counts[1] == counts[2],
        () -> {
          List<Thread> builders = new ArrayList<>();
          for (int t = 0; t < 2; t++) {
            int first = t;
            builders.add(Thread.ofPlatform().start(() -> {
              for (int i = first; i < 1000; i += 2) {
                registry.newPage("p" + i, "u" + i, "c" + i, Map.of());
              }
            }));
          }
          join(builders);
        });
    assertThat(seen).isEmpty();
    assertThat(registry.pageItems().size()).isEqualTo(1000);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void dropPageTakesItsEmptiedParentsInOneStep(boolean withSeams) throws Exception {
    RegisterRegistry registry = withSeams ? new ChainPropertiesTest.SeamRegistry() : new RegisterRegistry();
    for (int i = 0; i < 1000; i++) {
      registry.newPage("p" + i, "u" + i, "c" + i);
    }
    List<String> seen = watch(registry,
        counts -> counts[0] == counts[1] && counts[1] == counts[2],
        () -> {
          List<Thread> droppers = new ArrayList<>();
          for (int t = 0; t < 2; t++) {
            int first = t;
            droppers.add(Thread.ofPlatform().start(() -> {
              for (int i = first; i < 1000; i += 2) {
                registry.dropPage("p" + i);
              }
            }));
          }
          join(droppers);
        });
    assertThat(seen).isEmpty();
    assertThat(registry.userItems().size()).isZero();
  }

  interface Shape {
    boolean whole(int[] counts);
  }

  /** Runs {@code work} while a reader checks every consistent view; returns the bad views seen. */
  private static List<String> watch(RegisterRegistry registry, Shape shape, ThrowingRunnable work)
      throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    ConcurrentLinkedQueue<String> bad = new ConcurrentLinkedQueue<>();
    int[] views = new int[1];
    java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
    Thread reader = Thread.ofPlatform().start(() -> {
      do { // the reader is reading before the work starts, and until it is over
        int[] counts = counts(registry);
        views[0]++;
        reading.countDown();
        if (!shape.whole(counts)) {
          bad.add("users " + counts[0] + ", connections " + counts[1] + ", pages " + counts[2]);
        }
      } while (running.get() && bad.size() < 5);
    });
    reading.await();
    work.run();
    running.set(false);
    reader.join();
    assertThat(views[0]).as("views read while the work ran").isPositive();
    return List.copyOf(bad);
  }

  private static int[] counts(RegisterRegistry registry) {
    Lock read = registry.pageItems().structure().read();
    read.lock();
    try {
      return new int[] {registry.userItems().rowsLocked().size(),
          registry.connectionItems().rowsLocked().size(), registry.pageItems().rowsLocked().size()};
    } finally {
      read.unlock();
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static void join(List<Thread> threads) {
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
