package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.control.RunDirectory;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test 1 of the drain: {@link #USERS} users with state (counters, notes, logins, some moved to the
 * other worker) across {@code cryo stop --mode drain} and a new {@code cryo serve} on the same run
 * directory, twice: in the second run half of them wake (each one's state read back identical, his
 * cookie resolving to him) and the other half stay frozen through the second drain; in the third
 * run everyone's state reads back identical. None is lost.
 *
 * <p>Among them, {@link #TAILS} guests in the middle of a login: each, with a page of his own
 * (a counter, a note), logs in as an identity that lives awake on the other worker; his worker
 * writes the login's tail parcel (his connection and page, under that identity) and answers 303,
 * which he has not followed when the drain begins — the tail parcel is still pending, and the
 * identity is frozen by its own worker's quit beside it. After each restart his cookie resolves to
 * the identity, and his page reads byte for byte as the login left it: the identity's counter, his
 * page's counter and note.
 */
class ServeDrainTest {

  /**
   * Users carried across the drain: 1,000 as the issue asks with {@code -Dcryo.drainTest.users=1000};
   * 300 by default, so that the test stays well under two minutes on a loaded 2-core machine (the
   * 10,000-user drain is measured in cryo-bench).
   */
  static final int USERS = Integer.getInteger("cryo.drainTest.users", 300);
  private static final int CLIENTS = 8;
  /** Guests whose login's tail parcel is pending when the drain begins. */
  static final int TAILS = 2;

  @TempDir Path scratch;

  /** One user of the test: his browser and the state his page showed before the drain. */
  private record Tab(DemoClient client, String page, JsonNode state) {}

  @Test
  void usersSurviveADrainAndARestartWithTheirState() throws Exception {
    Path home = scratch.resolve("home");
    List<Tab> tabs = new ArrayList<>();
    try (HttpClient http = HttpClient.newHttpClient();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
      ServeRun run = ServeRun.serving(home, "--workers", "2");
      try {
        long begun = System.nanoTime();
        List<Future<Tab>> made = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
          int n = i;
          made.add(pool.submit(() -> user(new DemoClient(http, run.base()), n)));
        }
        for (Future<Tab> tab : made) {
          tabs.add(tab.get());
        }
        for (int k = 0; k < TAILS; k++) {
          tabs.addAll(0, loginTail(new DemoClient(http, run.base()),
              new DemoClient(http, run.base()), k));
        }
        System.out.printf("%d users made in %d ms%n", USERS, millisSince(begun));
        begun = System.nanoTime();
        drain(home, run);
        assertThat(run.err()).contains("draining").containsPattern(
            "drained: " + (USERS + TAILS) + " users carried into .*reboot in [0-9.]+ s");
        System.out.printf("drained in %d ms: %s%n", millisSince(begun), run.err().lines()
            .filter(line -> line.contains("drained")).findFirst().orElse("?"));
        assertThat(RunDirectory.at(home).loadRunState().orElseThrow().hasEnded()).isTrue();
      } finally {
        run.close();
      }

      // The second run: every user comes back frozen; half of them wake, the other half stay
      // frozen through a second drain: users frozen before a drain are carried too.
      ServeRun second = ServeRun.serving(home, "--workers", "2");
      try {
        assertThat(second.err()).contains("the reboot data").contains("was adopted: "
            + (USERS + TAILS) + " users come back frozen");
        long checking = System.nanoTime();
        check(pool, http, second, tabs.subList(0, USERS / 2));
        System.out.printf("%d users woken and checked in %d ms%n", USERS / 2,
            millisSince(checking));
        drain(home, second);
      } finally {
        second.close();
      }
      ServeRun third = ServeRun.serving(home, "--workers", "2");
      try {
        assertThat(third.err()).contains("was adopted: " + (USERS + TAILS)
            + " users come back frozen");
        check(pool, http, third, tabs);
      } finally {
        third.close();
      }
    }
  }

  private void drain(Path home, ServeRun run) throws Exception {
    ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--home",
        home.toString());
    try {
      assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
    } finally {
      stop.close();
    }
    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
  }

  /** Each tab's page reads as it did before the first drain, with his own cookie. */
  private static void check(ExecutorService pool, HttpClient http, ServeRun run, List<Tab> tabs)
      throws Exception {
    List<Future<?>> checks = new ArrayList<>();
    for (Tab tab : tabs) {
      DemoClient client = new DemoClient(http, run.base());
      client.useCookie(tab.client().cookie());
      checks.add(pool.submit(() -> {
        assertThat(state(client, tab.page()).toString()).as("user %s", tab.state().path("user"))
            .isEqualTo(tab.state().toString()); // byte for byte, in the demo's order
        assertThat(client.cookie()).isEqualTo(tab.client().cookie()); // no new cookie minted
        return null;
      }));
    }
    for (Future<?> check : checks) {
      check.get();
    }
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** Makes user {@code n}: a page, counters, for some a note, a login, and a move. */
  private static Tab user(DemoClient client, int n) throws Exception {
    String page = client.openPage();
    for (int i = 0; i <= n % 3; i++) {
      assertThat(client.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
    }
    if (n % 2 == 0) {
      assertThat(client.post("/api/notes", Map.of("page", page, "text", "note " + n)).status())
          .isEqualTo(200);
    }
    if (n % 5 == 0) {
      assertThat(client.post("/api/login", Map.of("user", "user" + n, "page", page)).status())
          .isEqualTo(200);
    }
    JsonNode state = state(client, page);
    if (n % 10 == 0) { // moved: he lives on the other worker (a move wakes him there)
      assertThat(client.post("/api/move", Map.of()).status()).isEqualTo(200);
    }
    return new Tab(client, page, state);
  }

  /**
   * A guest in the middle of a login: identity {@code tail<k>} is made by {@code identity} (a page,
   * counters) and moved to the other worker, where it lives awake; the guest {@code guest} opens a
   * page (a counter, a note) on the reception and logs in as it. His worker hands his connection
   * over by the freezer (the tail parcel, under the identity) and answers 303 to the identity's
   * worker, which the guest does not follow: the drain finds the parcel pending.
   *
   * @return the identity's tab and the guest's, each with the state his page must read after a
   *     restart
   */
  private static List<Tab> loginTail(DemoClient identity, DemoClient guest, int k)
      throws Exception {
    String user = "tail" + k;
    String own = identity.openPage();
    for (int i = 0; i < 2 + k; i++) {
      assertThat(identity.post("/api/counter", Map.of("page", own)).status()).isEqualTo(200);
    }
    assertThat(identity.post("/api/login", Map.of("user", user, "page", own)).status())
        .isEqualTo(200);
    DemoClient.Answer move = identity.post("/api/move", Map.of());
    assertThat(move.status()).as(move.text()).isEqualTo(200);
    JsonNode identityState = state(identity, own);
    String page = guest.openPage();
    assertThat(guest.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
    assertThat(guest.post("/api/notes", Map.of("page", page, "text", "tail note " + k)).status())
        .isEqualTo(200);
    DemoClient.Answer there = guest.get("/api/state?page=" + page);
    assertThat(there.field("worker")).as("the guest lives on the other worker than %s", user)
        .isEqualTo(move.field("from"));
    DemoClient.Answer login = guest.post("/api/login", Map.of("user", user, "page", page));
    assertThat(login.status()).as("a login tail: %s", login.text()).isEqualTo(303);
    ObjectNode expected = DemoClient.JSON.createObjectNode();
    expected.put("user", user);
    expected.put("counter", identityState.path("counter").asLong());
    expected.put("pageCounter", 1);
    expected.putArray("notes").add("tail note " + k);
    return List.of(new Tab(identity, own, identityState), new Tab(guest, page, expected));
  }

  /** The page's state as the demo shows it, without the worker that served it. */
  private static JsonNode state(DemoClient client, String page) throws Exception {
    DemoClient.Answer answer = client.get("/api/state?page=" + page);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    ObjectNode state = (ObjectNode) answer.json();
    state.remove("worker");
    return state;
  }
}
