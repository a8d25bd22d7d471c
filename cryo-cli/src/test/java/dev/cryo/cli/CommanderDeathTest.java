package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code cryo serve} killed with SIGKILL while its users are awake: its workers see the end of
 * their wire, freeze their users into the freezer and exit; the next {@code cryo serve} on the same
 * home waits for them (the run's writers file), adopts the parcels they wrote and serves every user
 * with the state he had, a logged-in user and a guest alike (the logged-in one by the cookie his
 * login gave him, while the cookie it retired still reaches a fresh guest). The workers are held stopped
 * (SIGSTOP) from before the kill until the next run has started and waited a while, so that the
 * next run's start always comes before their freeze: it must wait, not sweep what they are about
 * to write.
 */
class CommanderDeathTest {

  @TempDir Path scratch;

  @Test
  void awakeUsersComeBackWithTheirStateAfterTheCommanderIsKilled() throws Exception {
    Path home = scratch.resolve("home");
    ServeRun run = ServeRun.serving(home, "--workers", "2");
    String member;
    String beforeLogin;
    String guest;
    String memberPage;
    String guestPage;
    List<ProcessHandle> workers;
    try (HttpClient http = HttpClient.newHttpClient()) {
      DemoClient anna = new DemoClient(http, run.base());
      memberPage = anna.openPage();
      beforeLogin = anna.cookie(); // retired by the login: it must stay dead after the restart
      anna.post("/api/login", Map.of("user", "awake@example.org"));
      for (int i = 0; i < 3; i++) {
        assertThat(anna.post("/api/counter", Map.of("page", memberPage)).status()).isEqualTo(200);
      }
      DemoClient visitor = new DemoClient(http, run.base());
      guestPage = visitor.openPage();
      for (int i = 0; i < 5; i++) {
        assertThat(visitor.post("/api/counter", Map.of("page", guestPage)).status())
            .isEqualTo(200);
      }
      assertThat(anna.get("/api/state?page=" + memberPage).number("counter")).isEqualTo(3);
      assertThat(visitor.get("/api/state?page=" + guestPage).number("counter")).isEqualTo(5);
      member = anna.cookie();
      guest = visitor.cookie();
      workers = run.workerProcesses();
      assertThat(workers).hasSize(2);
      for (ProcessHandle worker : workers) {
        ChildCryo.kill("STOP", worker.pid());
      }
      ChildCryo.kill("KILL", run.process().pid());
      run.process().waitFor();
    } finally {
      run.close(); // the commander only: its workers are orphans now
    }

    ServeRun next = ServeRun.start(home, "--workers", "1");
    try (HttpClient http = HttpClient.newHttpClient()) {
      Poll.until("the next run waits for the workers before", () -> {
        assertThat(next.err()).doesNotContain("its journal was adopted");
        return next.err().contains("this start waits for them");
      });
      for (ProcessHandle worker : workers) {
        ChildCryo.kill("CONT", worker.pid());
      }
      next.awaitUrl();
      for (ProcessHandle worker : workers) { // ended (its lock went with it), maybe not reaped yet
        Poll.until("worker " + worker.pid() + " of the killed run exits", () -> !worker.isAlive());
      }
      assertThat(next.err()).contains("2 users that were awake, and 0 born after its last record,"
          + " come back from their newest parcel", "0 users that were awake left no parcel",
          ", commander_lost)"); // the cause their workers wrote, losing their commander
      DemoClient anna = new DemoClient(http, next.base());
      anna.useCookie(member);
      assertThat(anna.get("/api/state?page=" + memberPage).number("counter")).isEqualTo(3);
      assertThat(anna.post("/api/counter", Map.of("page", memberPage)).status()).isEqualTo(200);
      assertThat(anna.get("/api/state?page=" + memberPage).number("counter")).isEqualTo(4);
      assertThat(anna.cookie()).isEqualTo(member);
      DemoClient planted = new DemoClient(http, next.base());
      planted.useCookie(beforeLogin);
      DemoClient.Answer retired = planted.get("/api/state");
      if (retired.status() == 409) { // within the grace after the login: refused, no cookie set
        assertThat(retired.text()).contains("cookie_rotated").doesNotContain("anna");
        assertThat(planted.cookie()).as("no cookie set").isEqualTo(beforeLogin);
      } else { // after it: a fresh guest
        assertThat(retired.field("user")).as("the cookie the login retired: %s", retired.text())
            .startsWith("guest_");
        assertThat(planted.cookie()).isNotEqualTo(beforeLogin);
      }
      DemoClient visitor = new DemoClient(http, next.base());
      visitor.useCookie(guest);
      assertThat(visitor.get("/api/state?page=" + guestPage).number("counter")).isEqualTo(5);
    } finally {
      next.close();
    }
  }
}
