package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    run = ServeRun.serving(scratch.resolve("home"), "--allowed-origin", "https://app.example",
        "--request-timeout", "2s", "--admin-port", "0");
  }

  @AfterAll
  static void stop() {
    run.close();
  }

  @Test
  void aRequestTricklingInOneByteAtATimeIsCutAndCounted() throws Exception {
    try (Socket socket = new Socket(run.base().getHost(), run.base().getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write("GET /api/state HTTP/1.1\r\nHost: a\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
      long start = System.nanoTime();
      boolean cut = false;
      // One byte each 250 ms, which keeps Jetty's idle timeout (30 s) from ever firing.
      while (!cut && System.nanoTime() - start < 20_000_000_000L) {
        try {
          out.write('a');
          out.flush();
          Thread.sleep(250); // the trickle's pace, not a synchronisation
        } catch (IOException closed) {
          cut = true;
        }
      }
      assertThat(cut).as("the trickling request was cut").isTrue();
    }
    Matcher admin = Pattern.compile("cryo admin: (http://\\S+)/_cryo/status").matcher(run.out());
    assertThat(admin.find()).isTrue();
    String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(admin.group(1)
        + "/_cryo/metrics")).build(), BodyHandlers.ofString()).body();
    assertThat(metrics).contains("cryo_front_requests_cut_total 1.0")
        .contains("cryo_front_limit{limit=\"request_timeout_seconds\"} 2.0")
        .contains("cryo_front_limit{limit=\"max_connections_per_address\"} 256.0");
  }

  @Test
  void aLoginPostedFromAnotherSitesPageIsRefusedAndTheVisitorStaysHimself() throws Exception {
    DemoClient victim = new DemoClient(HTTP, run.base());
    String page = victim.openPage();
    String guest = victim.get("/api/state?page=" + page).field("user");
    assertThat(guest).startsWith("guest_");

    // What a page elsewhere makes the victim's browser send: his cookie, a text/plain form. On a
    // client of its own: a refusal that leaves the body unread ends its connection.
    DemoClient.Answer forged;
    try (HttpClient fresh = HttpClient.newHttpClient()) {
      DemoClient browser = new DemoClient(fresh, run.base());
      browser.useCookie(victim.cookie());
      forged = browser.post("/api/login", Map.of("user", "mallory", "page", page),
          "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site");
    }

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
