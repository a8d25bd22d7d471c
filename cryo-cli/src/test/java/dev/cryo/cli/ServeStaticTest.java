package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.admin.PrometheusText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application's static files ({@code routes.staticResources}) on a real {@code cryo serve}
 * with two workers: served by a worker for no user — a flood of asset requests without a cookie
 * makes no guest, no connection, no birth — with their caching headers, and refusals of path
 * tricks as JSON.
 */
class ServeStaticTest {

  static final String TOKEN = "serve-static-test-token-7";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path scratch;

  static ServeRun run;
  static HttpClient http; // no cookie handler: every request comes without a cookie
  static URI admin;

  @BeforeAll
  static void serve() throws Exception {
    run = ServeRun.serving(scratch.resolve("home"), "--workers", "2", "--admin-port", "0",
        "--admin-token", TOKEN, "--app", StaticSiteApplication.class.getName());
    http = HttpClient.newHttpClient();
    admin = AdminServeTest.adminUrl(run);
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

  static HttpResponse<String> get(URI base, String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.toString()
        .replaceAll("/$", "") + path)).timeout(Duration.ofSeconds(30));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return http.send(request.build(), BodyHandlers.ofString());
  }

  static JsonNode status() throws Exception {
    HttpResponse<String> response = get(admin, "/_cryo/status.json", "Authorization",
        "Bearer " + TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  static int placed() {
    try {
      return status().path("users").path("placed").asInt();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static PrometheusText metrics() throws Exception {
    return PrometheusText.parse(get(admin, "/_cryo/metrics", "Authorization", "Bearer " + TOKEN)
        .body());
  }

  @Test
  void aFloodOfAssetRequestsMakesNoUserAndCarriesCachingHeaders() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String path = i % 2 == 0 ? "/assets/css/site.css" : "/assets/site.js";
      flood.add(http.sendAsync(HttpRequest.newBuilder(URI.create(run.base().toString()
          .replaceAll("/$", "") + path)).timeout(Duration.ofSeconds(60)).build(),
          BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> each : flood) {
      HttpResponse<String> response = each.join();
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(response.headers().firstValue("set-cookie")).as("no cookie for an asset")
          .isEmpty();
    }
    HttpResponse<String> css = get(run.base(), "/assets/css/site.css");
    assertThat(css.body()).isEqualTo("body { margin: 0; }\n");
    assertThat(css.headers().firstValue("content-type")).hasValue("text/css; charset=utf-8");
    assertThat(css.headers().firstValue("cache-control")).hasValue("public, max-age=600");
    String etag = css.headers().firstValue("etag").orElseThrow();
    assertThat(etag).matches("\"[0-9a-f]{32}\"");
    assertThat(get(run.base(), "/assets/site.js").headers().firstValue("content-type"))
        .hasValue("text/javascript; charset=utf-8");
    HttpResponse<String> again = get(run.base(), "/assets/css/site.css", "If-None-Match", etag);
    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();

    JsonNode users = status().path("users");
    assertThat(users.path("placed").asInt()).as(users.toString()).isZero();
    assertThat(users.path("frozen").asInt()).isZero();
    assertThat(status().path("connections").asInt()).isZero();
    PrometheusText metrics = metrics();
    assertThat(metrics.valueOrZero("cryo_births_total")).isZero();
    assertThat(metrics.valueOrZero("cryo_http_requests_total{status=\"200\"}"))
        .isGreaterThanOrEqualTo(202);

    // the measure can fail: a route's request makes a guest
    assertThat(get(run.base(), "/api/hello").headers().firstValue("set-cookie")).isPresent();
    Poll.until("the route's guest is placed", () -> placed() == 1);
  }

  @Test
  void foldersMissingFilesAndPathTricksAreRefusedAsJson() throws Exception {
    for (String path : List.of("/assets", "/assets/", "/assets/css", "/assets/css/",
        "/assets/nothing.css")) {
      HttpResponse<String> response = get(run.base(), path);
      assertThat(response.statusCode()).as(path).isEqualTo(404);
      assertThat(response.headers().firstValue("content-type")).as(path)
          .hasValue("application/json");
      assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("not_found");
      assertThat(response.headers().firstValue("set-cookie")).isEmpty();
    }
    for (String path : List.of("/assets/css%2Fsite.css", "/assets/%2e%2e/site.js",
        "/assets/css/..%2F..%2Fsite.js", "/assets/css%5Csite.css", "/assets//site.js")) {
      HttpResponse<String> response = get(run.base(), path);
      assertThat(response.statusCode()).as(path + ": " + response.body()).isIn(400, 404);
      assertThat(response.headers().firstValue("content-type")).as(path + ": " + response.body())
          .hasValue("application/json");
      assertThat(JSON.readTree(response.body()).path("error").asText()).as(path)
          .isIn("bad_path", "bad_request", "not_found");
      assertThat(response.body()).doesNotContain("margin");
    }
    HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(run.base().toString()
        .replaceAll("/$", "") + "/assets/site.js")).POST(HttpRequest.BodyPublishers.noBody())
        .build(), BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
  }
}
