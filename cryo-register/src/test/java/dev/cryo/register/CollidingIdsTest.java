package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Optimistic readers against writers, with ids whose string hashes all collide ("Aa" and "BB"
 * hash alike, and so does every string of those blocks): the hash maps and sets a reader walks
 * turn such buckets into trees, which a writer rebalances while the reader is inside. Every reader
 * must keep answering right, and end: each wait here is bounded.
 */
class CollidingIdsTest {

  /** {@code 2^blocks} distinct strings of one hash: every string of "Aa"/"BB" blocks. */
  static List<String> colliding(String prefix, int blocks) {
    List<String> out = new ArrayList<>(List.of(prefix));
    for (int i = 0; i < blocks; i++) {
      List<String> longer = new ArrayList<>(out.size() * 2);
      for (String id : out) {
        longer.add(id + "Aa");
        longer.add(id + "BB");
      }
      out = longer;
    }
    return out;
  }

  @Test
  void theIdsCollide() {
    List<String> ids = colliding("p", 7);
    assertThat(ids).hasSize(128).doesNotHaveDuplicates();
    assertThat(ids.stream().map(String::hashCode).distinct()).hasSize(1);
  }

  @Test
  void readersWalkingCollidingBucketsWhileWritersRebalanceThemKeepAnsweringAndEnd()
      throws Exception {
    RegisterRegistry registry = new RegisterRegistry();
    registry.addIndex(RegisterRegistry.CONNECTION_ITEMS, ConnectionRow.USER);
    List<String> ids = colliding("p", 8); // 256 pages of one hash
    List<String> stable = ids.subList(0, 64); // always there
    List<String> churn = ids.subList(64, ids.size()); // born and dropped all along
    List<String> users = colliding("u", 3);
    for (int i = 0; i < stable.size(); i++) {
      registry.newPage(stable.get(i), users.get(i % users.size()), "c" + users.get(i % 8));
    }
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    int readers = 2;
    int writers = 2;
    AtomicLongArray rounds = new AtomicLongArray(readers + writers);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      threads.add(thread("writer-" + w, () -> {
        List<String> mine = churn.subList(writer * churn.size() / writers,
            (writer + 1) * churn.size() / writers);
        while (!stop.get()) {
          for (int i = 0; i < mine.size(); i++) { // a whole tree bin of pages, then of connections
            String user = users.get(i % users.size());
            registry.newPage(mine.get(i), user, "c" + mine.get(i), Map.of("title", mine.get(i)));
          }
          for (String page : mine) {
            registry.dropPage(page);
          }
          rounds.incrementAndGet(readers + writer);
        }
      }, wrong));
    }
    for (int r = 0; r < readers; r++) {
      int reader = r;
      threads.add(thread("reader-" + r, () -> {
        while (!stop.get()) {
          for (int i = 0; i < stable.size(); i++) {
            String page = stable.get(i);
            String user = users.get(i % users.size());
            check(wrong, page + " belongs to", registry.pageUser(page), user);
            check(wrong, page + " is there", registry.pageItems().get(page).isPresent(), true);
            check(wrong, page + " is its own root",
                registry.pageItems().keysBy(PageRow.ROOT_PAGE_ID, page), java.util.Set.of(page));
            check(wrong, page + " is a page of its connection", registry.pageItems()
                .keysBy(PageRow.CONNECTION_ID, "c" + users.get(i % 8)).contains(page), true);
            check(wrong, user + " has his connection", registry.connectionItems()
                .keysBy(ConnectionRow.USER, user).contains("c" + users.get(i % 8)), true);
          }
          check(wrong, "a page never born is absent",
              registry.pageItems().contains(ids.get(0) + "Aa"), false);
          rounds.incrementAndGet(reader);
        }
      }, wrong));
    }
    threads.forEach(Thread::start);
    long churnUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < bound && (System.nanoTime() < churnUntil || !allAdvanced(rounds))
        && wrong.isEmpty()) {
      Thread.sleep(20); // polls the condition; the bound only a stuck thread reaches
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(wrong).as("wrong answers and failures").isEmpty();
    assertThat(threads).as("threads still running: a reader or writer never ended")
        .noneMatch(Thread::isAlive);
    for (int i = 0; i < rounds.length(); i++) {
      assertThat(rounds.get(i)).as("rounds of thread " + i).isPositive();
    }
    assertThat(ChainInvariants.violations(registry)).isEmpty();
    assertThat(registry.pageItems().keys()).containsExactlyInAnyOrderElementsOf(stable);
  }

  private static boolean allAdvanced(AtomicLongArray rounds) {
    for (int i = 0; i < rounds.length(); i++) {
      if (rounds.get(i) < 3) {
        return false;
      }
    }
    return true;
  }

  private static void check(ConcurrentLinkedQueue<String> wrong, String what, Object actual,
      Object expected) {
    if (!expected.equals(actual)) {
      wrong.add(what + ": expected " + expected + ", read " + actual);
    }
  }

  private static Thread thread(String name, Runnable body, ConcurrentLinkedQueue<String> wrong) {
    Thread thread = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable failure) {
        wrong.add(name + " threw " + failure);
      }
    }, name);
    thread.setDaemon(true); // a looping reader of a failed run must not keep the JVM
    return thread;
  }
}
