package dev.cryo.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * The demo's JSON API (docs/demo.md) over HTTP/1.1, for many virtual users at once: one JDK
 * {@link HttpClient} (its connection pool shared), the connection cookie sent by hand per call, no
 * redirect followed. Each method does one request and returns what its reply said; an
 * {@link IOException} means no reply came (a {@link java.net.ConnectException}: the request never
 * left; anything else: unknown). Thread-safe: call it from any number of virtual threads.
 */
public final class DemoClient implements AutoCloseable {

  /** The connection cookie's name. */
  public static final String COOKIE = "cryo_connection";
  /** The header a run adds, when asked, naming the placement that served a call. */
  public static final String PLACEMENT_HEADER = "Cryo-Placement";

  private final HttpClient http;
  private final URI base;
  private final Duration timeout;

  /** A client of the run serving at {@code base}; a request gives up after {@code timeout}. */
  public DemoClient(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(Duration.ofSeconds(3))
        .executor(Executors.newVirtualThreadPerTaskExecutor())
        .build();
  }

  /** The JDK client, for the page sockets of the same run. */
  HttpClient http() {
    return http;
  }

  /** Where the run serves. */
  public URI base() {
    return base;
  }

  /** {@code POST /api/pages}. */
  public Reply openPage(String cookie) throws IOException, InterruptedException {
    return send(cookie, "POST", "/api/pages", null);
  }

  /** {@code POST /api/counter {"page": page}}. */
  public Reply increment(String cookie, String page) throws IOException, InterruptedException {
    return send(cookie, "POST", "/api/counter", body("page", page));
  }

  /** {@code POST /api/notes {"page": page, "text": "n<number>"}}. */
  public Reply note(String cookie, String page, long number)
      throws IOException, InterruptedException {
    return send(cookie, "POST", "/api/notes", body("page", page, "text", noteText(number)));
  }

  /** {@code GET /api/state?page=page} ({@code page} may be null). */
  public Reply read(String cookie, String page) throws IOException, InterruptedException {
    String path = page == null ? "/api/state"
        : "/api/state?page=" + URLEncoder.encode(page, StandardCharsets.UTF_8);
    return send(cookie, "GET", path, null);
  }

  /** {@code POST /api/login {"user": identity, "page": page}}; a 303 is returned as it is. */
  public Reply login(String cookie, String identity, String page)
      throws IOException, InterruptedException {
    return send(cookie, "POST", "/api/login",
        page == null ? body("user", identity) : body("user", identity, "page", page));
  }

  /** {@code POST /api/move}. */
  public Reply move(String cookie) throws IOException, InterruptedException {
    return send(cookie, "POST", "/api/move", null);
  }

  /** The text of note {@code number}: {@code n<number>}. */
  static String noteText(long number) {
    return "n" + number;
  }

  static String body(String... keysAndValues) {
    ObjectNode node = History.JSON.createObjectNode();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      node.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return node.toString();
  }

  private Reply send(String cookie, String method, String path, String json)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
    if (cookie != null) {
      request.header("Cookie", COOKIE + "=" + cookie);
    }
    if (json != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofString(json));
    } else {
      request.method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofString(""));
    }
    HttpResponse<String> response = http.send(request.build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    String placement = response.headers().firstValue(PLACEMENT_HEADER).orElse(null);
    return parse(response.statusCode(), response.body(),
        response.headers().firstValue("Content-Type").orElse(""),
        response.headers().firstValue("Cryo-Reason"), placement,
        cookieOf(response.headers().allValues("Set-Cookie")));
  }

  /** What a reply of {@code status} with {@code body} says (also used for the page socket's). */
  static Reply parse(int status, String body, String contentType, Optional<String> reason,
      String placement, String cookie) {
    JsonNode json = null;
    if (contentType.startsWith("application/json") || body.startsWith("{")) {
      try {
        json = History.JSON.readTree(body);
      } catch (IOException e) {
        json = null;
      }
    }
    return parse(status, json, reason, placement, cookie,
        json == null ? body.substring(0, Math.min(body.length(), 200)) : null);
  }

  static Reply parse(int status, JsonNode json, Optional<String> reason, String placement,
      String cookie, String text) {
    String error = null;
    String message = null;
    if (status / 100 != 2 && status != 303) {
      error = json != null && json.hasNonNull("error") ? json.get("error").asText()
          : "http_" + status + reason.map(r -> "_" + r).orElse("");
      message = json != null ? text(json, "message") : text;
    }
    String worker = text(json, "worker");
    if (worker == null) {
      worker = text(json, "to");
    }
    Long noteMax = null;
    Integer notes = null;
    if (json != null && json.get("notes") instanceof JsonNode list && list.isArray()) {
      notes = list.size();
      long max = -1;
      for (JsonNode note : list) {
        max = Math.max(max, noteNumber(note.asText()));
      }
      noteMax = max < 0 ? 0L : max;
    }
    String servedBy = null;
    Long generation = null;
    if (placement != null) {
      for (String part : placement.split(";")) {
        String[] pair = part.trim().split("=", 2);
        if (pair.length == 2 && pair[0].equals("worker")) {
          servedBy = pair[1];
        } else if (pair.length == 2 && pair[0].equals("generation")) {
          try {
            generation = Long.parseLong(pair[1]);
          } catch (NumberFormatException e) {
            generation = null;
          }
        }
      }
    }
    return new Reply(status, error, text(json, "user"), number(json, "counter"),
        number(json, "pageCounter"), noteMax, notes, worker, text(json, "page"), servedBy,
        generation, cookie, message == null || message.length() <= 200 ? message
            : message.substring(0, 200));
  }

  /** The number of a note this harness wrote ({@code n<number>}), or -1 for any other text. */
  static long noteNumber(String text) {
    if (text.length() < 2 || text.charAt(0) != 'n') {
      return -1;
    }
    try {
      return Long.parseLong(text, 1, text.length(), 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static String cookieOf(List<String> setCookies) {
    for (String header : setCookies) {
      if (header.startsWith(COOKIE + "=")) {
        int end = header.indexOf(';');
        String value = header.substring(COOKIE.length() + 1, end < 0 ? header.length() : end);
        return value.isEmpty() ? null : value;
      }
    }
    return null;
  }

  private static String text(JsonNode json, String field) {
    return json != null && json.hasNonNull(field) && json.get(field).isValueNode()
        ? json.get(field).asText() : null;
  }

  private static Long number(JsonNode json, String field) {
    return json != null && json.hasNonNull(field) && json.get(field).isIntegralNumber()
        ? json.get(field).asLong() : null;
  }

  @Override
  public void close() {
    http.close();
  }
}
