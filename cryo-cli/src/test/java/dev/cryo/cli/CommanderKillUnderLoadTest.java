package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.cli.KnownUsers.User;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of {@code cryo serve} (the commander) under load, at scale: 1,000 cookie-less
 * browsers on two worker JVMs, each with a page, a quarter logged into identities of their own,
 * each with a known number of clicks (1–5), and 100 of them still clicking when the commander is
 * killed. Its workers lose their wire, freeze their users and exit; the test waits for them, then
 * starts {@code cryo serve} again on the same home. It checks:
 *
 * <ul>
 *   <li>the start's line: the journal adopted, no frozen user (all were awake), the 1,000 awake
 *       users (those the journal knew and those born after its last record) come back from their
 *       newest parcel, 0 left no parcel, none from a checkpoint (their workers froze them);
 *   <li>every user, with his own cookie and page: a 200 naming him (the same guest, or his
 *       identity), on the same cookie (no new one set), with his exact counter: the value of his
 *       last acknowledged click when no click of his was unanswered at the kill, and otherwise
 *       between it and it plus his unanswered clicks (each may or may not have counted);
 *   <li>no acknowledged click ever answered a value at or below one acknowledged before it;
 *   <li>his page still answers a click (counter + 1), on the new run.
 * </ul>
 */
class CommanderKillUnderLoadTest {

  static final int USERS = 1_000;
  static final int CLICKING = 100;
  static final int CONCURRENCY = 32;

  private static final Pattern ADOPTED = Pattern.compile("its journal was adopted[^:]*: (\\d+)"
      + " frozen users come back; (\\d+) users that were awake, and (\\d+) born after its last"
      + " record, come back from their newest parcel");

  @TempDir Path scratch;

  @Test
  void aThousandUsersComeBackWithTheirExactStateAfterTheCommanderIsKilledUnderLoad()
      throws Exception {
    Path home = scratch.resolve("home");
    KnownUsers known;
    List<ProcessHandle> workers;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      ServeRun run = ServeRun.serving(home, "--workers", "2", "--max-users-per-worker", "600");
      try {
        known = KnownUsers.make(http, run.base(), threads, USERS, CONCURRENCY);
        assertThat(known.users().stream().map(User::worker).distinct().count())
            .as("the users are spread over both workers").isEqualTo(2);
        workers = run.workerProcesses();
        assertThat(workers).hasSize(2);
        List<User> clicking = known.users().stream()
            .filter(user -> user.index % (USERS / CLICKING) == 3).toList();
        KnownUsers.Load load = known.load(threads, clicking, 20);
        int before = load.acknowledged().get();
        Poll.until("the load is served", () -> load.acknowledged().get() > before + 200);

        ChildCryo.kill("KILL", run.process().pid());
        // Dead before the close below looks for its descendants: until then its workers are
        // still its children, and the close would kill them in the middle of their freeze.
        run.process().waitFor();
        load.stop();
      } finally {
        run.close(); // the commander only: its workers, orphans, freeze their users meanwhile
      }
      for (ProcessHandle worker : workers) {
        Poll.until("worker " + worker.pid() + " of the killed run exits", () -> !worker.isAlive());
      }
    }

    ServeRun next = ServeRun.serving(home, "--workers", "2", "--max-users-per-worker", "600");
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      Matcher adopted = ADOPTED.matcher(next.err());
      assertThat(adopted.find()).as("the start's line: %s", next.err()).isTrue();
      assertThat(Integer.parseInt(adopted.group(1))).as("frozen users").isZero();
      assertThat(Integer.parseInt(adopted.group(2)) + Integer.parseInt(adopted.group(3)))
          .as("awake users back from their newest parcel: %s", adopted.group()).isEqualTo(USERS);
      assertThat(next.err()).contains("; 0 users that were awake left no parcel of their last"
          + " stay and are lost").doesNotContain("come back from a checkpoint");

      List<String> cookies = known.users().stream().map(user -> user.tab.cookie()).toList();
      List<DemoClient> again = new ArrayList<>();
      for (User user : known.users()) {
        DemoClient tab = new DemoClient(http, next.base());
        tab.useCookie(user.tab.cookie());
        again.add(tab);
      }
      List<Answer> states = known.states(threads, again);
      List<String> wrong = new ArrayList<>();
      int inFlight = 0;
      for (User user : known.users()) {
        Answer state = states.get(user.index);
        long acked = user.acked();
        int unsure = user.unsure();
        inFlight += unsure > 0 ? 1 : 0;
        if (state.status() != 200 || !user.name().equals(state.field("user"))
            || state.number("counter") < acked || state.number("counter") > acked + unsure
            || user.wentBack()) {
          wrong.add(user + " read " + state.status() + " " + state.text());
        } else if (!cookies.get(user.index).equals(again.get(user.index).cookie())) {
          wrong.add(user + " was given another cookie: " + again.get(user.index).cookie());
        }
      }
      assertThat(wrong).as("users not back with their exact state (%d of them had a click in"
          + " flight)", inFlight).isEmpty();

      TreeSet<String> unanswered = new TreeSet<>();
      for (User user : known.users()) { // each page still answers a click, on his state
        if (user.index % 10 != 0) {
          continue;
        }
        DemoClient tab = again.get(user.index);
        long counter = states.get(user.index).number("counter");
        Answer click = tab.post("/api/counter", Map.of("page", user.page()));
        if (click.status() != 200 || click.number("counter") != counter + 1) {
          unanswered.add(user + ": " + click.status() + " " + click.text());
        }
      }
      assertThat(unanswered).as("pages that no longer count").isEmpty();
    } finally {
      next.close();
    }
  }
}
