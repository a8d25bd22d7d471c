package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.cli.KnownUsers.User;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a worker JVM under load, at scale, with checkpoints at their default period
 * ({@code --checkpoint} not given: {@value #PERIOD_MILLIS} ms): 1,000 cookie-less browsers over
 * two workers of {@code cryo serve}, each with a page, a quarter logged into identities of their
 * own, each with a known number of clicks (1–5), then 100 of them clicking (20 ms between a
 * user's clicks) while the worker holding the most users is killed, its pid read from
 * {@code cryo status --json}. The load goes on until the death is in the event log, then stops;
 * every user's state is then read with his own cookie and page (a user of the dead worker is
 * woken elsewhere by that request). It checks, for every user:
 *
 * <ul>
 *   <li>he comes back: a 200 naming him (the same guest, or his identity), on his cookie (no new
 *       one set), his page known;
 *   <li>his counter is at least the value acknowledged to him {@link #WINDOW} or more before the
 *       kill was sent: the loss window is one period (a write is taken at the first walk after
 *       it) plus a margin of one second for the walk's writes to reach the disk on a loaded
 *       2-core machine (the walk writes at most 16 parcels at once, each a file written and
 *       renamed) and for the death itself (the kill is timed before it is sent);
 *   <li>his counter is at most the value of his last acknowledged click plus his clicks left
 *       unanswered since (a 502 or a reset may have counted);
 *   <li>if he lost anything (his counter below his last acknowledgement, or an acknowledgement
 *       answering no more than one before it), the {@code worker_died} event of the dead worker
 *       names him; and that event names under {@code restored} exactly the users the dead worker
 *       held, and nobody under {@code lost} (each was made more than the window before the kill,
 *       so each had a checkpoint).
 * </ul>
 */
class WorkerKillUnderLoadTest {

  static final int USERS = 1_000;
  static final int CLICKING = 100;
  static final int CONCURRENCY = 32;
  static final long PERIOD_MILLIS = 1_000;
  static final Duration WINDOW = Duration.ofMillis(PERIOD_MILLIS).plusSeconds(1);

  @TempDir Path scratch;

  @Test
  void aThousandUsersComeBackFromAKilledWorkerWithinTheCheckpointWindowEachLossNamed()
      throws Exception {
    Path home = scratch.resolve("home");
    try (ServeRun run = ServeRun.serving(home, "--workers", "2", "--max-users-per-worker", "600");
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      KnownUsers known = KnownUsers.make(http, run.base(), threads, USERS, CONCURRENCY);
      long made = System.nanoTime();
      String victim = known.users().get(0).worker(); // the reception: the first 600
      Set<String> onVictim = new TreeSet<>();
      for (User user : known.users()) {
        if (victim.equals(user.worker())) {
          onVictim.add(user.name());
        }
      }
      assertThat(onVictim.size()).as("the users are spread over both workers")
          .isBetween(1, USERS - 1);
      long pid = pidOf(home, victim);

      List<User> clicking = known.users().stream()
          .filter(user -> user.index % (USERS / CLICKING) == 3).toList();
      KnownUsers.Load load = known.load(threads, clicking, 20);
      int before = load.acknowledged().get();
      Poll.until("the load is served, and every user is older than the window",
          () -> load.acknowledged().get() > before + 200
              && System.nanoTime() - made > WINDOW.toNanos());

      long killed = System.nanoTime(); // before it is sent: the death comes after
      ChildCryo.kill("KILL", pid);
      AtomicReference<JsonNode> died = new AtomicReference<>();
      Poll.until("the worker_died of " + victim + " is in the event log", () -> {
        died.set(workerDied(home, victim));
        return died.get() != null;
      });
      load.stop();

      Set<String> restored = names(died.get().path("restored"));
      Set<String> lost = names(died.get().path("lost"));
      assertThat(lost).as("users lost with %s: %s", victim,
          describe(known.users(), lost, clicking, killed, home)).isEmpty();
      assertThat(restored).as("users restored from their checkpoints").isEqualTo(onVictim);

      List<String> cookies = known.users().stream().map(user -> user.tab.cookie()).toList();
      List<Answer> states = known.states(threads,
          known.users().stream().map(user -> user.tab).toList());
      List<String> wrong = new ArrayList<>();
      int lostSomething = 0;
      long mostLost = 0;
      for (User user : known.users()) {
        Answer state = states.get(user.index);
        long counter = state.number("counter");
        long floor = user.ackedBy(killed - WINDOW.toNanos());
        long acked = user.acked();
        if (state.status() != 200 || !user.name().equals(state.field("user"))) {
          wrong.add(user + " did not come back: " + state.status() + " " + state.text());
        } else if (!cookies.get(user.index).equals(user.tab.cookie())) {
          wrong.add(user + " was given another cookie: " + user.tab.cookie());
        } else if (counter < floor) {
          wrong.add(user + " lost more than the window: " + counter + ", acknowledged " + floor
              + " " + WINDOW + " before the kill");
        } else if (counter > acked + user.unsure()) {
          wrong.add(user + " counts clicks never sent: " + counter);
        } else if (counter < acked || user.wentBack()) {
          lostSomething++;
          mostLost = Math.max(mostLost, Math.max(acked - counter, user.wentBackBy()));
          if (!restored.contains(user.name()) && !lost.contains(user.name())) {
            wrong.add(user + " lost clicks (" + counter + ") and the worker_died names him"
                + " nowhere: " + died.get());
          }
        }
      }
      System.out.printf("worker kill: %d users on %s restored, %d lost something (at most %d"
          + " clicks); %d clicks acknowledged by the load%n", restored.size(), victim,
          lostSomething, mostLost, load.acknowledged().get());
      assertThat(wrong).as("users not back within the window").isEmpty();
    }
  }

  /** The pid of {@code worker}, as {@code cryo status --json} shows it (asked until it does). */
  private long pidOf(Path home, String worker) throws Exception {
    long[] pid = {0};
    Poll.until("cryo status shows the pid of " + worker, () -> {
      try (ChildCryo status = ChildCryo.start(scratch, "status", "--home", home.toString(),
          "--json")) {
        if (status.exitCode() != 0) {
          return false;
        }
        for (JsonNode row : DemoClient.JSON.readTree(status.out()).path("workers")) {
          if (row.path("name").asText().equals(worker) && row.path("pid").asLong() > 0) {
            pid[0] = row.path("pid").asLong();
            return true;
          }
        }
        return false;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    return pid[0];
  }

  /** The {@code worker_died} event of {@code worker} in the run's event log, or null. */
  private static JsonNode workerDied(Path home, String worker) {
    try {
      JsonNode found = null;
      for (Path file : EventAuditor.runFiles(home)) {
        for (String line : Files.readAllLines(file)) {
          if (line.contains("\"worker_died\"")) {
            JsonNode event = DemoClient.JSON.readTree(line);
            if (event.path("event").asText().equals("worker_died")
                && event.path("worker").asText().equals(worker)) {
              found = event;
            }
          }
        }
      }
      return found;
    } catch (java.io.IOException e) { // a line being written: read again
      return null;
    }
  }

  /**
   * What the test knows of the {@code named} users, for a failure: how many, how many of them
   * clicking, and for the first 20 when each held state first and was acknowledged last, before
   * the kill, and the header of his parcel in the freezer now (read with cryo's code: a witness).
   */
  private static String describe(List<User> users, Set<String> named, List<User> clicking,
      long killed, Path home) {
    dev.cryo.freezer.Freezer freezer;
    try {
      freezer = new dev.cryo.freezer.Freezer(home.resolve("freezer"));
    } catch (Exception e) {
      return named.size() + " users (the freezer did not open: " + e + ")";
    }
    StringBuilder out = new StringBuilder();
    int shown = 0;
    int busy = 0;
    long oldestIdle = 0;
    for (User user : users) {
      if (!named.contains(user.name())) {
        continue;
      }
      boolean clicks = clicking.contains(user);
      busy += clicks ? 1 : 0;
      long idle = (killed - user.ackedAt()) / 1_000_000;
      if (!clicks) {
        oldestIdle = Math.max(oldestIdle, idle);
      }
      if (shown++ < 20) {
        String parcel;
        try {
          parcel = freezer.userParcelHeader(user.name()).map(Object::toString).orElse("none");
        } catch (Exception e) {
          parcel = e.toString();
        }
        out.append("\n  user ").append(user.index).append(clicks ? " (clicking)" : " (idle)")
            .append(": held state from ").append((killed - user.firstAckedAt()) / 1_000_000)
            .append(" ms before the kill, last acknowledged ").append(idle)
            .append(" ms before it; his parcel now: ").append(parcel);
      }
    }
    return named.size() + " users, " + busy + " of them clicking; the idle one acknowledged"
        + " longest before the kill: " + oldestIdle + " ms" + out;
  }

  private static Set<String> names(JsonNode array) {
    Set<String> names = new TreeSet<>();
    array.forEach(name -> names.add(name.asText()));
    return names;
  }
}
