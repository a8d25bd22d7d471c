package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection cookie is rotated at login, in a real {@code cryo serve} with two workers: a
 * cookie planted in the victim's browser before he logs in (the attacker keeps a copy) never
 * reaches the logged-in user — right after the login (refused {@code 409 cookie_rotated}, no
 * cookie set: the same answer a request of the victim's own sent before the login's reply gets, so
 * it cannot replace his new cookie), after a move (a freeze and a wake on the other worker), and
 * after a drain and a new run on the same home (refused within the grace, a fresh guest after).
 * The victim's new cookie keeps reaching him through all of it.
 */
class ServeCookieRotationTest {

  @TempDir Path scratch;

  @Test
  void aLoginRotatesTheCookieAndThePlantedOneReachesAFreshGuest() throws Exception {
    Path home = scratch.resolve("home");
    try (HttpClient http = HttpClient.newHttpClient()) {
      String planted;
      String rotated;
      String page;
      ServeRun run = ServeRun.serving(home, "--workers", "2");
      try {
        DemoClient victim = new DemoClient(http, run.base());
        page = victim.openPage();
        assertThat(victim.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
        planted = victim.cookie(); // the attacker's copy, planted before the login
        assertThat(planted).isNotNull();

        DemoClient.Answer login = victim.post("/api/login", Map.of("user", "anna", "page", page));
        assertThat(login.status()).as(login.text()).isEqualTo(200);
        assertThat(login.field("user")).isEqualTo("anna");
        rotated = victim.cookie();
        assertPlantedIsRefused(http, run, planted); // before: the old cookie reached anna
        assertThat(rotated).as("the login answers with a new cookie").isNotEqualTo(planted);
        assertVictim(victim, page, 1);

        DemoClient.Answer move = victim.post("/api/move", Map.of());
        assertThat(move.status()).as(move.text()).isEqualTo(200);
        assertThat(victim.cookie()).isEqualTo(rotated);
        assertVictim(victim, page, 1);
        assertPlantedIsAGuest(http, run, planted);
        assertThat(victim.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);

        ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--home",
            home.toString());
        try {
          assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
        } finally {
          stop.close();
        }
        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
      } finally {
        run.close();
      }

      ServeRun second = ServeRun.serving(home, "--workers", "2");
      try {
        assertPlantedIsAGuest(http, second, planted); // before he wakes: his connection is frozen
        DemoClient victim = new DemoClient(http, second.base());
        victim.useCookie(rotated);
        assertVictim(victim, page, 2);
        assertThat(victim.cookie()).isEqualTo(rotated);
        assertPlantedIsAGuest(http, second, planted);
      } finally {
        second.close();
      }
    }
  }

  /**
   * A login into an identity that lives on the other worker (the login tail: the connection goes
   * to him by the freezer once the call ends) rotates the cookie too: the 303 carries the new
   * value, which reaches the identity; the one before reaches a fresh guest.
   */
  @Test
  void aLoginIntoAnIdentityElsewhereRotatesTheCookieToo() throws Exception {
    Path home = scratch.resolve("home");
    try (HttpClient http = HttpClient.newHttpClient();
        ServeRun run = ServeRun.serving(home, "--workers", "2")) {
      DemoClient identity = new DemoClient(http, run.base());
      String own = identity.openPage();
      assertThat(identity.post("/api/login", Map.of("user", "anna", "page", own)).status())
          .isEqualTo(200);
      assertThat(identity.post("/api/counter", Map.of("page", own)).status()).isEqualTo(200);
      DemoClient.Answer move = identity.post("/api/move", Map.of());
      assertThat(move.status()).as(move.text()).isEqualTo(200);
      assertThat(identity.get("/api/state").field("worker")).isEqualTo(move.field("to"));

      DemoClient guest = new DemoClient(http, run.base());
      String page = guest.openPage();
      assertThat(guest.get("/api/state").field("worker")).isEqualTo(move.field("from"));
      String planted = guest.cookie();
      DemoClient.Answer login = guest.post("/api/login", Map.of("user", "anna", "page", page));
      assertThat(login.status()).as("a login tail: %s", login.text()).isEqualTo(303);
      assertThat(guest.cookie()).as("the 303 carries a new cookie").isNotEqualTo(planted);
      assertPlantedIsRefused(http, run, planted);
      DemoClient.Answer state = guest.get("/api/state?page=" + page);
      assertThat(state.status()).as(state.text()).isEqualTo(200);
      assertThat(state.field("user")).isEqualTo("anna");
      assertThat(state.number("counter")).isEqualTo(1);
      assertPlantedIsAGuest(http, run, planted);
    }
  }

  /**
   * A logout ends the connection and clears its cookie (the copy reaches a fresh guest), the user
   * and his other connection stay; a forget drops the user: his other browser is a fresh guest,
   * and a new login as the same name starts empty.
   */
  @Test
  void aLogoutEndsTheConnectionAndAForgetTheUser() throws Exception {
    Path home = scratch.resolve("home");
    try (HttpClient http = HttpClient.newHttpClient();
        ServeRun run = ServeRun.serving(home, "--workers", "2")) {
      DemoClient laptop = new DemoClient(http, run.base());
      String page = laptop.openPage();
      assertThat(laptop.post("/api/login", Map.of("user", "anna", "page", page)).status())
          .isEqualTo(200);
      assertThat(laptop.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
      DemoClient phone = new DemoClient(http, run.base());
      phone.openPage();
      DemoClient.Answer second = phone.post("/api/login", Map.of("user", "anna"));
      assertThat(second.status()).isIn(200, 303);
      assertThat(phone.get("/api/state").field("user")).isEqualTo("anna");

      String laptopCookie = laptop.cookie();
      DemoClient.Answer logout = laptop.post("/api/logout", Map.of());
      assertThat(logout.status()).as(logout.text()).isEqualTo(200);
      assertThat(logout.field("user")).isEqualTo("anna");
      assertThat(laptop.cookie()).as("the logout clears the cookie").isNull();
      DemoClient.Answer after = laptop.get("/api/state");
      assertThat(after.field("user")).startsWith("guest_");
      assertThat(laptop.cookie()).isNotNull().isNotEqualTo(laptopCookie);
      assertPlantedIsAGuest(http, run, laptopCookie);
      DemoClient.Answer stays = phone.get("/api/state");
      assertThat(stays.field("user")).as("the user and his other connection stay")
          .isEqualTo("anna");
      assertThat(stays.number("counter")).isEqualTo(1);

      String phoneCookie = phone.cookie();
      DemoClient.Answer forget = phone.post("/api/forget", Map.of());
      assertThat(forget.status()).as(forget.text()).isEqualTo(200);
      assertThat(phone.cookie()).isNull();
      assertPlantedIsAGuest(http, run, phoneCookie);
      DemoClient again = new DemoClient(http, run.base());
      DemoClient.Answer relogin = again.post("/api/login", Map.of("user", "anna"));
      assertThat(relogin.status()).isEqualTo(200);
      assertThat(relogin.number("counter")).as("a forgotten user comes back empty").isZero();
    }
  }

  /**
   * A request with the planted cookie reaches nobody's state: within the grace after the rotation
   * it is refused {@code 409 cookie_rotated} and sets no cookie (a request the victim's browser sent
   * before it took the new cookie must not replace it); after the grace, or for a connection that
   * ended, it is a fresh guest's, with a new cookie of its own.
   */
  private static void assertPlantedIsAGuest(HttpClient http, ServeRun run, String planted)
      throws Exception {
    DemoClient attacker = new DemoClient(http, run.base());
    attacker.useCookie(planted);
    DemoClient.Answer state = attacker.get("/api/state");
    if (state.status() == 409) {
      assertRefusedWithoutCookie(attacker, state, planted);
      return;
    }
    assertThat(state.status()).as(state.text()).isEqualTo(200);
    assertThat(state.field("user")).as("the planted cookie after the login")
        .startsWith("guest_").isNotEqualTo("anna");
    assertThat(state.number("counter")).isZero();
    assertThat(attacker.cookie()).as("a cookie the run does not know gets a new one")
        .isNotEqualTo(planted);
  }

  /** A request with {@code planted}, retired moments ago: refused, and no cookie is set. */
  private static void assertPlantedIsRefused(HttpClient http, ServeRun run, String planted)
      throws Exception {
    DemoClient late = new DemoClient(http, run.base());
    late.useCookie(planted);
    DemoClient.Answer state = late.post("/api/counter", Map.of());
    assertThat(state.status()).as("a request with the cookie before the login: %s", state.text())
        .isEqualTo(409);
    assertRefusedWithoutCookie(late, state, planted);
  }

  private static void assertRefusedWithoutCookie(DemoClient client, DemoClient.Answer answer,
      String planted) {
    assertThat(answer.text()).as("the refusal names its reason").contains("cookie_rotated")
        .doesNotContain("anna");
    assertThat(client.cookie()).as("the refusal sets no cookie: the browser keeps the login's")
        .isEqualTo(planted);
  }

  private static void assertVictim(DemoClient victim, String page, long pageCounter)
      throws Exception {
    DemoClient.Answer state = victim.get("/api/state?page=" + page);
    assertThat(state.status()).as(state.text()).isEqualTo(200);
    assertThat(state.field("user")).isEqualTo("anna");
    assertThat(state.number("pageCounter")).isEqualTo(pageCounter);
  }
}
