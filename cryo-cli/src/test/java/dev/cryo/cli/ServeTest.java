package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cryo serve} as a user meets it: real JVMs, a real port, the demo's JSON API. */
class ServeTest {

  @TempDir static Path scratch;
  static ServeRun run;
  static HttpClient http;

  @BeforeAll
  static void serve() throws Exception {
    run = ServeRun.serving(scratch.resolve("home"), "--workers", "2");
    http = HttpClient.newHttpClient();
  }

  @AfterAll
  static void stop() {
    if (http != null) {
      http.close();
    }
    if (run != null) {
      run.close();
    }
  }

  @Test
  void aGuestCountsOnTheReceptionAndKeepsHisCookie() throws Exception {
    DemoClient tab = new DemoClient(http, run.base());
    String page = tab.openPage();
    Answer first = tab.post("/api/counter", Map.of("page", page));
    Answer second = tab.post("/api/counter", Map.of("page", page));

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.number("counter")).isEqualTo(1);
    assertThat(second.number("counter")).isEqualTo(2);
    assertThat(second.number("pageCounter")).isEqualTo(2);
    assertThat(second.field("worker")).isEqualTo(first.field("worker")).isNotBlank();
    assertThat(tab.cookie()).hasSize(22);
  }

  @Test
  void aMovedUserIsServedByAnotherWorkerWithHisCounterAndNotes() throws Exception {
    DemoClient tab = new DemoClient(http, run.base());
    String page = tab.openPage();
    assertThat(tab.post("/api/login", Map.of("user", "mover@example.org")).status())
        .isEqualTo(200);
    tab.post("/api/counter", Map.of("page", page));
    tab.post("/api/notes", Map.of("page", page, "text", "kept across the move"));
    String before = tab.get("/api/state?page=" + page).field("worker");

    Answer move = tab.post("/api/move", Map.of());
    Answer after = tab.get("/api/state?page=" + page);

    assertThat(move.status()).as(move.text()).isEqualTo(200);
    assertThat(move.field("from")).isEqualTo(before);
    assertThat(move.field("to")).isNotEqualTo(before);
    assertThat(after.field("worker")).isEqualTo(move.field("to"));
    assertThat(after.number("counter")).isEqualTo(1);
    assertThat(after.json().path("notes").toString()).contains("kept across the move");
  }

  @Test
  void aForgedReplayedOrRandomCookieNeverReachesAnotherUsersState() throws Exception {
    DemoClient owner = new DemoClient(http, run.base());
    String page = owner.openPage();
    owner.post("/api/login", Map.of("user", "owner@example.org"));
    owner.post("/api/notes", Map.of("page", page, "text", "private"));
    Answer mine = owner.post("/api/counter", Map.of("page", page));
    DemoClient guest = new DemoClient(http, run.base());
    String guestName = guest.post("/api/counter", Map.of("page", guest.openPage())).field("user");
    assertThat(guestName).startsWith("guest_");
    String cookie = owner.cookie();
    java.util.List<String> forgeries = new java.util.ArrayList<>(java.util.List.of(
        "AAAAAAAAAAAAAAAAAAAAAA",                                   // random-looking
        cookie.substring(0, 21) + (cookie.charAt(21) == 'A' ? 'B' : 'A'), // one letter off
        cookie + "A", "../../" + cookie, ""));
    forgeries.add(guestName.substring("guest_".length())); // the id the application showed
    forgeries.add(guest.cookie()); // somebody else's real cookie is his, not the owner's

    for (String forged : forgeries) {
      DemoClient thief = new DemoClient(http, run.base());
      thief.useCookie(forged);
      Answer stolen = thief.get("/api/state?page=" + page);
      assertThat(stolen.status()).as("the owner's page through " + forged).isEqualTo(404);
      String own = thief.openPage();
      Answer counted = thief.post("/api/counter", Map.of("page", own));
      assertThat(counted.field("user")).as("who " + forged + " is").startsWith("guest_")
          .isNotEqualTo(mine.field("user"));
      if (forged.equals(guest.cookie())) {
        assertThat(counted.field("user")).isEqualTo(guestName); // a bearer cookie is its owner's
        continue;
      }
      assertThat(counted.field("user")).isNotEqualTo(guestName);
      assertThat(counted.number("counter")).isEqualTo(1);
      assertThat(thief.cookie()).as("a new cookie for " + forged).isNotEqualTo(forged)
          .isNotEqualTo(cookie);
    }
    Answer still = owner.get("/api/state?page=" + page);
    assertThat(still.number("counter")).isEqualTo(mine.number("counter"));
    assertThat(still.json().path("notes").toString()).contains("private");
  }

  @Test
  void aMoveOfAConnectionNobodyPlacedYetIsRefused409NotAFailure() throws Exception {
    Answer move = new DemoClient(http, run.base()).post("/api/move", Map.of());

    assertThat(move.status()).as(move.text()).isEqualTo(409);
    assertThat(move.field("error")).isEqualTo("move_refused");
    assertThat(move.field("message")).doesNotContain("null");
  }

  @Test
  void aSecondServeOnTheSameHomeExits75NamingTheHolder() throws Exception {
    ServeRun second = ServeRun.start(run.home());
    try {
      assertThat(second.exitCode()).isEqualTo(75);
      assertThat(second.err()).contains("home_held");
    } finally {
      second.close();
    }
  }

  @Test
  void aFrozenTimeToLiveOfZeroIsRefusedBeforeAnythingStarts() throws Exception {
    ServeRun refused = ServeRun.start(scratch.resolve("zero-ttl"), "--frozen-guest-ttl", "0");
    try {
      assertThat(refused.exitCode()).isEqualTo(64);
      assertThat(refused.err()).contains("bad_ttl", "--frozen-guest-ttl");
      assertThat(scratch.resolve("zero-ttl").resolve("run.json")).doesNotExist();
    } finally {
      refused.close();
    }
  }

  @Test
  void statusShowsTheRunAndItsWorkers() throws Exception {
    Poll.until("status.json is written", () -> run.home().resolve("status.json").toFile()
        .exists());
    ChildCryo status = ChildCryo.start(scratch, "status", "--home", run.home().toString(),
        "--json");
    try {
      assertThat(status.exitCode()).as(status.err()).isEqualTo(0);
      var json = DemoClient.JSON.readTree(status.out());
      assertThat(json.path("alive").asBoolean()).isTrue();
      assertThat(json.path("workers").size()).isGreaterThanOrEqualTo(2);
      assertThat(json.path("run").path("pid").asLong()).isEqualTo(run.process().pid());
    } finally {
      status.close();
    }
  }
}
