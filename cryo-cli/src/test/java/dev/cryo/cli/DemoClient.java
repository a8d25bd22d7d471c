package dev.cryo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Map;

/**
 * One browser connection to the demo's JSON API (docs/demo.md): it keeps the connection cookie
 * cryo gives it, as a browser would. Not thread-safe: one request at a time, like one tab.
 */
final class DemoClient {

  static final ObjectMapper JSON = new ObjectMapper();

  /** One answer: its status and its JSON body (null when the body is not JSON). */
  record Answer(int status, JsonNode json, String text) {
    String field(String name) {
      return json == null ? null : json.path(name).asText(null);
    }

    long number(String name) {
      return json == null ? -1 : json.path(name).asLong(-1);
    }
  }

  private final HttpClient http;
  private final URI base;
  private String cookie;

  DemoClient(HttpClient http, URI base) {
    this.http = http;
    this.base = base;
  }

  String cookie() {
    return cookie;
  }

  /** Sends the cookie {@code value} from now on (a forged or stolen one, in a test). */
  void useCookie(String value) {
    this.cookie = value;
  }

  Answer post(String path, Object body) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(base.resolve(path))
        .header("content-type", "application/json")
        .POST(BodyPublishers.ofString(JSON.writeValueAsString(body))));
  }

  /** A POST with extra headers ({@code name, value, name, value…}: an Origin, in a test). */
  Answer post(String path, Object body, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .header("content-type", "application/json")
        .POST(BodyPublishers.ofString(JSON.writeValueAsString(body)));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return send(request);
  }

  Answer get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  String openPage() throws IOException, InterruptedException {
    Answer answer = post("/api/pages", Map.of());
    if (answer.status() != 200) {
      throw new AssertionError("POST /api/pages answered " + answer.status() + ": "
          + answer.text());
    }
    return answer.field("page");
  }

  private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
    request.timeout(Duration.ofSeconds(90)); // a loaded machine; a passing run never waits this long
    if (cookie != null) {
      request.header("cookie", "cryo_connection=" + cookie);
    }
    HttpResponse<String> response = http.send(request.build(), BodyHandlers.ofString());
    response.headers().allValues("set-cookie").stream()
        .filter(value -> value.startsWith("cryo_connection="))
        .findFirst()
        .map(value -> value.substring("cryo_connection=".length(), value.indexOf(';')))
        .ifPresent(value -> cookie = value.isEmpty() ? null : value); // empty: cleared
    JsonNode json = null;
    try {
      json = JSON.readTree(response.body());
    } catch (IOException e) {
      // not JSON: a 502/503 of cryo's own, or HTML
    }
    return new Answer(response.statusCode(), json, response.body());
  }
}
