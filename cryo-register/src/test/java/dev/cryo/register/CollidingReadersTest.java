package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Many optimistic readers of one register against writers that add, re-file and remove rows whose
 * keys all share one string hash, filed in an index under values that share one hash too: the rows'
 * map, the index's buckets and the buckets' large key sets all hold one bin of colliding keys,
 * which grows into a tree, is rebalanced on every insert and removal, and shrinks back. Readers ask
 * for the rows that are always there and the buckets they are filed in. Every answer must be right,
 * no read may throw, and every reader must keep finishing its rounds: each wait is bounded, and a
 * reader that stops advancing fails the test.
 */
class CollidingReadersTest {

  private static final int READERS = 4;
  private static final int WRITERS = 3;

  @Test
  void readersOfCollidingRowsAndBucketsAnswerRightAndEndWhileWritersChurnThem() throws Exception {
    Register<Row> register = Register.of("colliding", "group", "tag");
    List<String> hashAlike = CollidingIdsTest.colliding("k", 10); // 1,024 strings of one hash
    List<String> ids = hashAlike.subList(0, 512);
    List<String> groups = CollidingIdsTest.colliding("g", 3); // 8 values of one hash
    List<String> stable = ids.subList(0, 48); // always there: 6 in each group
    List<String> churn = ids.subList(48, ids.size()); // created, moved and dropped all along
    List<String> absentTags = hashAlike.subList(512, 520); // never created
    for (int i = 0; i < stable.size(); i++) {
      register.create(stable.get(i), fields(stable.get(i), groups.get(i % groups.size())));
    }
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    AtomicLongArray rounds = new AtomicLongArray(READERS + WRITERS);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      List<String> mine = churn.subList(writer * churn.size() / WRITERS,
          (writer + 1) * churn.size() / WRITERS);
      threads.add(thread("writer-" + w, wrong, () -> {
        while (!stop.get()) {
          for (int i = 0; i < mine.size(); i++) {
            register.create(mine.get(i), fields(mine.get(i), groups.get(i % groups.size())));
          }
          for (int i = 0; i < mine.size(); i += 2) { // re-filed: out of one bucket, into another
            register.update(mine.get(i), Map.of("group", groups.get((i + 1) % groups.size())));
          }
          for (int i = mine.size() - 1; i >= 0; i--) {
            register.drop(mine.get(i));
          }
          rounds.incrementAndGet(READERS + writer);
        }
      }));
    }
    for (int r = 0; r < READERS; r++) {
      int reader = r;
      threads.add(thread("reader-" + r, wrong, () -> {
        while (!stop.get()) {
          for (int i = 0; i < stable.size(); i++) {
            String key = stable.get(i);
            String group = groups.get(i % groups.size());
            Optional<Row> row = register.get(key);
            check(wrong, key + " is there", row.isPresent(), true);
            check(wrong, key + " is contained", register.contains(key), true);
            Set<String> filed = register.keysBy("group", group);
            check(wrong, key + " is filed under its group", filed.contains(key), true);
            check(wrong, key + " is the one row of its tag", register.keysBy("tag", tag(key)),
                Set.of(key));
            for (String other : filed) {
              int at = ids.indexOf(other);
              if (at < 0 || (at < stable.size() && at % groups.size() != i % groups.size())) {
                wrong.add(other + " read under group " + group + ", where it never was");
              }
            }
          }
          Set<String> all = new HashSet<>(register.keys());
          check(wrong, "every stable row is listed", all.containsAll(stable), true);
          check(wrong, "a key never created is absent", register.contains("k" + "Aa"), false);
          for (String absent : absentTags) { // a search down every branch of the tag bin
            check(wrong, absent + " tags no row", register.keysBy("tag", tag(absent)), Set.of());
          }
          rounds.incrementAndGet(reader);
        }
      }));
    }
    threads.forEach(Thread::start);
    long churnUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
    long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    long[] seen = new long[rounds.length()];
    long[] seenAt = new long[rounds.length()];
    java.util.Arrays.fill(seenAt, System.nanoTime());
    String stuck = null;
    while (wrong.isEmpty() && stuck == null && System.nanoTime() < bound
        && (System.nanoTime() < churnUntil || !allAdvanced(rounds, 3))) {
      Thread.sleep(20); // polls the condition; the bounds are what a stuck thread reaches
      long now = System.nanoTime();
      for (int i = 0; i < seen.length; i++) {
        if (rounds.get(i) != seen[i]) {
          seen[i] = rounds.get(i);
          seenAt[i] = now;
        } else if (now - seenAt[i] > TimeUnit.SECONDS.toNanos(30)) {
          stuck = threads.get(i < READERS ? WRITERS + i : i - READERS).getName()
              + " finished no round for 30 s";
        }
      }
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(20));
    }
    assertThat(wrong).as("wrong answers and failures").isEmpty();
    assertThat(stuck).as("a thread that stopped advancing").isNull();
    assertThat(threads).as("threads still running: a reader or writer never ended")
        .noneMatch(Thread::isAlive);
    assertThat(allAdvanced(rounds, 3)).as("every thread finished rounds: %s", rounds).isTrue();
    assertThat(register.keys()).containsExactlyInAnyOrderElementsOf(stable);
  }

  /**
   * A row's fields: its group (a string, shared by many rows) and its tag, a list holding its own
   * key. Lists of colliding strings collide too, and a list is not {@link Comparable}: a tree bin
   * of such keys is searched down both sides, one call deeper at each node that cannot be told
   * apart, and a reader that meets a node swap halfway (a removal's successor pointing back at the
   * node it replaces) goes one call deeper on every lap, until its stack overflows.
   */
  private static Map<String, Object> fields(String key, String group) {
    return Map.of("group", group, "tag", tag(key));
  }

  private static List<String> tag(String key) {
    return List.of(key);
  }

  private static boolean allAdvanced(AtomicLongArray rounds, long least) {
    for (int i = 0; i < rounds.length(); i++) {
      if (rounds.get(i) < least) {
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

  private static Thread thread(String name, ConcurrentLinkedQueue<String> wrong, Runnable body) {
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
