package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.admin.PrometheusText;
import dev.cryo.cli.DemoClient.Answer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin listener of a real {@code cryo serve --admin-port 0 --admin-token T}: its endpoints
 * over real HTTP on both ports, the token rules, and metrics that move with real requests and a
 * real move between two worker JVMs.
 */
class AdminServeTest {

  static final String TOKEN = "admin-serve-test-token-42";
  static final Pattern ADMIN_URL = Pattern.compile("cryo admin: (http://[^ /]+)/_cryo/status");
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path scratch;
  static ServeRun run;
  static HttpClient http;
  static URI admin;

  @BeforeAll
  static void serve() throws Exception {
    run = ServeRun.serving(scratch.resolve("home"), "--workers", "2", "--admin-port", "0",
        "--admin-token", TOKEN);
    http = HttpClient.newHttpClient();
    admin = adminUrl(run);
    // a loaded machine may start the second worker late (or retry it under another name)
    Poll.until("two workers run", () -> {
      try {
        return runningWorkers().size() >= 2;
      } catch (Exception e) {
        return false;
      }
    });
  }

  /** The names of the running workers, from the admin port's status.json. */
  static java.util.Set<String> runningWorkers() throws Exception {
    java.util.Set<String> names = new TreeSet<>();
    for (JsonNode worker : statusJson().path("workers")) {
      if ("running".equals(worker.path("state").asText())) {
        names.add(worker.path("name").asText());
      }
    }
    return names;
  }

  /** The admin port's base URL, from the line cryo serve prints before its URL line. */
  static URI adminUrl(ServeRun run) {
    Matcher matcher = ADMIN_URL.matcher(run.out());
    assertThat(matcher.find()).as("the admin line in: " + run.out()).isTrue();
    return URI.create(matcher.group(1) + "/");
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

  static HttpResponse<String> get(URI base, String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), BodyHandlers.ofString());
  }

  static JsonNode statusJson() throws Exception {
    HttpResponse<String> response = get(admin, "/_cryo/status.json", "Bearer " + TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  static PrometheusText metrics() throws Exception {
    HttpResponse<String> response = get(admin, "/_cryo/metrics", "Bearer " + TOKEN);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).get().asString()
        .startsWith("text/plain; version=0.0.4");
    return PrometheusText.parse(response.body());
  }

  @Test
  void theAdminPathsNeedTheTokenOnBothPortsAndTheApplicationDoesNot() throws Exception {
    for (URI base : new URI[] {admin, run.base()}) {
      for (String path : new String[] {"/_cryo/status", "/_cryo/status.json", "/_cryo/metrics"}) {
        HttpResponse<String> none = get(base, path, null);
        assertThat(none.statusCode()).as(base + path).isEqualTo(401);
        assertThat(none.body()).doesNotContain("main_0001");
        assertThat(get(base, path, "Bearer not-the-token-at-all-000").statusCode())
            .as(base + path).isEqualTo(401);
        assertThat(get(base, path, "Bearer " + TOKEN).statusCode()).as(base + path)
            .isEqualTo(200);
      }
    }
    assertThat(get(run.base(), "/api/state", null).statusCode()).isEqualTo(200);
    assertThat(get(admin, "/api/state", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
  }

  @Test
  void statusJsonHasTheShapeCryoStatusJsonPrints() throws Exception {
    JsonNode served = statusJson();
    InProcess.Result printed = cryo("status", "--json", "--home", run.home().toString());
    assertThat(printed.exitCode()).as(printed.err()).isZero();
    JsonNode file = JSON.readTree(printed.out());

    assertThat(fieldsOf(served, "")).isEqualTo(fieldsOf(file, ""));
    assertThat(served.path("schema").asText()).isEqualTo("cryo.status/1");
    assertThat(served.path("alive").asBoolean()).isTrue();
    assertThat(served.path("run")).isEqualTo(file.path("run"));
    // the names are the run's (a loaded machine may replace a worker that fell silent)
    assertThat(served.path("workers")).extracting(worker -> worker.path("name").asText())
        .isNotEmpty().allMatch(name -> name.matches("main_[0-9]{4}"));
    assertThat(served.path("freezer").path("total_bytes").asLong()).isPositive();
    assertThat(served.path("freezer").path("free_bytes").asLong()).isPositive();
  }

  /** Every field path of a JSON tree (an array stands for its first element). */
  static TreeSet<String> fieldsOf(JsonNode node, String prefix) {
    TreeSet<String> fields = new TreeSet<>();
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        fields.add(prefix + field.getKey());
        fields.addAll(fieldsOf(field.getValue(), prefix + field.getKey() + "."));
      }
    } else if (node.isArray() && !node.isEmpty()) {
      fields.addAll(fieldsOf(node.get(0), prefix + "[]."));
    }
    return fields;
  }

  @Test
  void theCountersMoveWithRequestsAndAMove() throws Exception {
    PrometheusText before = metrics();
    DemoClient tab = new DemoClient(http, run.base());
    String page = tab.openPage();
    assertThat(tab.post("/api/login", Map.of("user", "metered@example.org")).status())
        .isEqualTo(200);
    tab.post("/api/counter", Map.of("page", page));
    Answer move = tab.post("/api/move", Map.of());
    assertThat(move.status()).as(move.text()).isEqualTo(200);
    assertThat(tab.get("/api/state?page=" + page).number("counter")).isEqualTo(1);

    PrometheusText after = metrics();
    String ok = "cryo_http_requests_total{status=\"200\"}";
    assertThat(after.valueOrZero(ok) - before.valueOrZero(ok)).isGreaterThanOrEqualTo(5);
    assertThat(delta(before, after, "cryo_http_request_latency_seconds_count"))
        .isGreaterThanOrEqualTo(5);
    assertThat(delta(before, after, "cryo_wire_round_trip_seconds_count"))
        .isGreaterThanOrEqualTo(5);
    assertThat(delta(before, after, "cryo_births_total")).isGreaterThanOrEqualTo(1);
    assertThat(delta(before, after, "cryo_moves_total{outcome=\"done\"}")).isEqualTo(1);
    assertThat(delta(before, after, "cryo_freezes_total")).isGreaterThanOrEqualTo(1);
    assertThat(delta(before, after, "cryo_wakes_total")).isGreaterThanOrEqualTo(1);
    assertThat(delta(before, after, "cryo_wake_latency_seconds_count"))
        .isGreaterThanOrEqualTo(1);
    JsonNode status = statusJson();
    for (JsonNode worker : status.path("workers")) {
      assertThat(after.value("cryo_worker_users{worker=\"" + worker.path("name").asText()
          + "\"}")).as(worker.toString()).isNotNull();
    }
    assertThat(after.value("cryo_sockets_open")).isNotNull();
    assertThat(after.value("cryo_freezer_free_bytes")).isPositive();
  }

  @Test
  void anOpenPageSocketIsCountedUntilItCloses() throws Exception {
    DemoClient tab = new DemoClient(http, run.base());
    tab.openPage();
    String origin = "http://" + run.base().getHost() + ":" + run.base().getPort();
    dev.cryo.front.SocketClient socket = dev.cryo.front.SocketClient.connect(http,
        URI.create("ws://" + run.base().getHost() + ":" + run.base().getPort() + "/_cryo/ws"),
        tab.cookie(), origin);
    Poll.until("the metrics count the open socket", () -> socketsOpen() >= 1);
    socket.close();
    Poll.until("the metrics count it no more", () -> socketsOpen() == 0);
  }

  private static double socketsOpen() {
    try {
      return metrics().valueOrZero("cryo_sockets_open");
    } catch (Exception e) {
      return -1;
    }
  }

  private static double delta(PrometheusText before, PrometheusText after, String key) {
    return after.valueOrZero(key) - before.valueOrZero(key);
  }

  @Test
  void theLiveStreamSendsTheWorkersAndTheLatestEvents() throws Exception {
    DemoClient tab = new DemoClient(http, run.base());
    tab.post("/api/counter", Map.of("page", tab.openPage()));
    java.util.Set<String> before = runningWorkers();
    HttpResponse<Stream<String>> stream = http.send(HttpRequest.newBuilder(
        admin.resolve("/_cryo/status/stream")).header("Authorization", "Bearer " + TOKEN)
        .build(), BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    String data;
    try (Stream<String> lines = stream.body()) {
      data = lines.filter(line -> line.startsWith("data: ")).findFirst().orElseThrow();
    }
    JsonNode document = JSON.readTree(data.substring("data: ".length()));
    java.util.Set<String> streamed = new TreeSet<>();
    for (JsonNode worker : document.path("status").path("workers")) {
      if ("running".equals(worker.path("state").asText())) {
        streamed.add(worker.path("name").asText());
      }
    }
    assertThat(streamed).hasSizeGreaterThanOrEqualTo(2)
        .isIn(before, runningWorkers()); // the run's workers, as status.json says before or after
    assertThat(document.path("events")).extracting(event -> event.path("label").asText())
        .contains("birth");
  }
}
