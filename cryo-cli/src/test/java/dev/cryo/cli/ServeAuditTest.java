package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test 1 of the runtime: 200 users with their own cookies across 3 worker JVMs, random counter
 * calls and moves over HTTP; an independent auditor of the replies and of the commander's event
 * log fails on a user served by two workers at once, an adoption before its freeze, or a counter
 * that skips or goes back.
 */
class ServeAuditTest {

  static final int USERS = 200;
  static final int ROUNDS = 12 * Integer.getInteger("cryo.stress.scale", 1);

  @TempDir Path scratch;

  @Test
  void twoHundredUsersAcrossThreeWorkersNeverLiveTwiceNorLoseACount() throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "3",
            "--max-workers", "3", "--max-users-per-worker", "80");
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      List<String> problems = new CopyOnWriteArrayList<>();
      Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
      AtomicInteger moves = new AtomicInteger();
      List<Future<?>> users = new ArrayList<>();
      for (int i = 0; i < USERS; i++) {
        String name = "user-" + i + "@example.org";
        long seed = 9_000 + i;
        users.add(threads.submit(() -> {
          play(http, run, name, new Random(seed), problems, statuses, moves);
          return null;
        }));
      }
      for (Future<?> user : users) {
        user.get();
      }
      EventAuditor auditor = EventAuditor.audit(EventAuditor.runFiles(run.home()),
          user -> user.startsWith("user-"));

      assertThat(problems).as("what the replies showed").isEmpty();
      assertThat(auditor.violations()).as("what the event log showed").isEmpty();
      assertThat(moves.get()).as("moves done").isGreaterThan(USERS / 4);
      assertThat(auditor.freezes()).as("freezes in the log").isGreaterThanOrEqualTo(moves.get());
      assertThat(auditor.adoptions()).as("adoptions in the log").isGreaterThan(0);
      assertThat(statuses.keySet()).as("statuses seen: " + statuses).isSubsetOf(200, 409, 503);
      int answered = statuses.values().stream().mapToInt(AtomicInteger::get).sum();
      assertThat(statuses.getOrDefault(503, new AtomicInteger()).get())
          .as("503s (held past the wait) among " + answered).isLessThan(answered / 50 + 1);
    }
  }

  /** One user: a tab, a login, then counter calls and moves; every reply checked. */
  private static void play(HttpClient http, ServeRun run, String name, Random random,
      List<String> problems, Map<Integer, AtomicInteger> statuses, AtomicInteger moves)
      throws Exception {
    DemoClient tab = new DemoClient(http, run.base());
    String page = tab.openPage();
    Answer login = tab.post("/api/login", Map.of("user", name));
    count(statuses, login);
    if (login.status() != 200 || !name.equals(login.field("user"))) {
      problems.add(name + ": login answered " + login.status() + " " + login.text());
      return;
    }
    long counter = login.number("counter");
    int unsure = 0;
    for (int round = 0; round < ROUNDS; round++) {
      if (random.nextInt(5) == 0) {
        Answer move = tab.post("/api/move", Map.of());
        count(statuses, move);
        if (move.status() == 200) {
          moves.incrementAndGet();
          if (move.field("to") == null || move.field("to").equals(move.field("from"))) {
            problems.add(name + ": a move went nowhere: " + move.text());
          }
        } else if (move.status() != 409 && move.status() != 503) {
          problems.add(name + ": move answered " + move.status() + " " + move.text());
        }
        continue;
      }
      Answer answer = tab.post("/api/counter", Map.of("page", page));
      count(statuses, answer);
      if (answer.status() == 503) { // held past the wait, or cut: it may or may not have counted
        unsure++;
        continue;
      }
      if (answer.status() != 200) {
        problems.add(name + ": counter answered " + answer.status() + " " + answer.text());
        return;
      }
      if (!name.equals(answer.field("user"))) {
        problems.add(name + ": served as " + answer.field("user"));
      }
      long next = answer.number("counter");
      if (next < counter + 1 || next > counter + 1 + unsure) {
        problems.add(name + ": counter went from " + counter + " to " + next + " on "
            + answer.field("worker") + " (" + unsure + " answers of 503 between)");
      }
      counter = next;
      unsure = 0;
    }
  }

  private static void count(Map<Integer, AtomicInteger> statuses, Answer answer) {
    statuses.computeIfAbsent(answer.status(), key -> new AtomicInteger())
        .incrementAndGet();
  }
}
