package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attacker against a real {@code cryo serve} over real sockets (docs/security.md): each attack
 * is refused as the docs say, and the run goes on serving everybody else.
 */
class HostileFrontTest {

  @TempDir static Path scratch;
  static ServeRun run;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void serve() throws Exception {
    run = ServeRun.serving(scratch.resolve("home"), "--allowed-origin", "https://app.example");
  }

  @AfterAll
  static void stop() {
    run.close();
  }

  @Test
  void aLoginPostedFromAnotherSitesPageIsRefusedAndTheVisitorStaysHimself() throws Exception {
    DemoClient victim = new DemoClient(HTTP, run.base());
    String page = victim.openPage();
    String guest = victim.get("/api/state?page=" + page).field("user");
    assertThat(guest).startsWith("guest_");

    // What a page elsewhere makes the victim's browser send: his cookie, a text/plain form.
    DemoClient.Answer forged = victim.post("/api/login", Map.of("user", "mallory", "page", page),
        "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site");

    assertThat(forged.status()).isEqualTo(403);
    assertThat(forged.field("error")).isEqualTo("cross_site");
    assertThat(victim.get("/api/state?page=" + page).field("user")).isEqualTo(guest);
    String own = "http://" + run.base().getHost() + ":" + run.base().getPort();
    assertThat(victim.post("/api/login", Map.of("user", "anna", "page", page), "Origin", own)
        .status()).isEqualTo(200);
    assertThat(victim.get("/api/state?page=" + page).field("user")).isEqualTo("anna");
    DemoClient allowed = new DemoClient(HTTP, run.base());
    String other = allowed.openPage();
    assertThat(allowed.post("/api/counter", Map.of("page", other), "Origin",
        "https://app.example").status()).isEqualTo(200);
  }
}
