package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.ReloadOutcome;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling reload under a steady load from the load generator, over real worker processes behind
 * the front: zero failed requests, every user's counter goes on from where it was (his state kept)
 * across a version whose state class gained and lost a field and one that upgrades it; then a roll
 * back to a version that cannot read his state is refused up front, nothing replaced, and he is
 * served on as before.
 */
@Timeout(600)
class ReloadUnderLoadTest {

  @TempDir
  Path scratch;

  @Test
  void aReloadUnderLoadFailsNoRequestAndKeepsEveryState() throws Exception {
    Path one = AppVersions.jar(scratch, "one", AppVersions.ONE);
    Path two = AppVersions.jar(scratch, "two", AppVersions.TWO);
    Path three = AppVersions.jar(scratch, "three", AppVersions.THREE);
    Path home = Files.createDirectories(scratch.resolve("home"));
    CommanderConfig config = CommanderConfig.builder(home, AppVersions.APP).appPath(one)
        .workers(2).maxWorkers(4).workerHeapBytes(128L * 1024 * 1024)
        .presentation(Duration.ofSeconds(60)) // a loaded machine starts a JVM slowly
        .hold(Duration.ofSeconds(120)) // a loaded machine: a held request waits, it never fails
        .build();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");

      ReloadOutcome[] reloads = new ReloadOutcome[2];
      LoadGenerator.Result load = LoadGenerator.runDuring(base, 20, Duration.ofSeconds(2), () -> {
        reloads[0] = commander.reload(two); // gained tags, lost nickname
        reloads[1] = commander.reload(three); // state version 2, upgraded from 1
        Thread.sleep(500); // a last stretch of load on the newest version
        return null;
      });

      assertThat(reloads[0].done()).as(reloads[0].message()).isTrue();
      assertThat(reloads[0].replaced()).hasSize(2);
      assertThat(reloads[0].lost()).isEmpty();
      assertThat(reloads[1].done()).as(reloads[1].message()).isTrue();
      assertThat(reloads[1].lost()).isEmpty();
      assertThat(load.errors()).as(load.toString()).isZero();
      assertThat(load.stateBreaks()).as(load.toString()).isZero();
      assertThat(load.requests()).isPositive();

      // A user frozen by state version 2, woken by a version that reads only 1.
      try (HttpClient client = HttpClient.newHttpClient()) {
        HttpResponse<String> opened = client.send(post(base, "/api/pages", "{}", null),
            HttpResponse.BodyHandlers.ofString());
        String cookie = match("cryo_connection=([^;]+)", opened.headers()
            .firstValue("set-cookie").orElseThrow());
        String page = match("\"page\"\\s*:\\s*\"([^\"]+)\"", opened.body());
        String body = "{\"page\":\"" + page + "\"}";
        HttpResponse<String> counted = client.send(post(base, "/api/counter", body, cookie),
            HttpResponse.BodyHandlers.ofString());
        assertThat(counted.statusCode()).as(counted.body()).isEqualTo(200);

        // A roll back to state version 1 would strand him (his state is of version 2): refused up
        // front, nothing replaced, and he is served on as before.
        ReloadOutcome back = commander.reload(two);
        assertThat(back.done()).as(back.message()).isFalse();
        assertThat(back.refusal()).isEqualTo(ReloadOutcome.Refusal.UNREADABLE_STATE);
        assertThat(back.replaced()).isEmpty();
        assertThat(back.message()).contains("cannot read");
        HttpResponse<String> again = client.send(post(base, "/api/counter", body, cookie),
            HttpResponse.BodyHandlers.ofString());
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(match("\"counter\"\\s*:\\s*([0-9]+)", again.body())).isEqualTo("2");
      }
    }
  }

  private static HttpRequest post(URI base, String path, String body, String cookie) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (cookie != null) {
      request.header("cookie", "cryo_connection=" + cookie);
    }
    return request.build();
  }

  private static String match(String pattern, String text) {
    Matcher matcher = Pattern.compile(pattern).matcher(text);
    assertThat(matcher.find()).as("%s in %s", pattern, text).isTrue();
    return matcher.group(1);
  }
}
