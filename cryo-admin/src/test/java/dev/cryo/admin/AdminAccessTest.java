package dev.cryo.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The access rules of the admin paths over real HTTP: an admin port and a front, each a real Jetty
 * on a real port, with and without a token.
 */
class AdminAccessTest {

  private static final String TOKEN = "the-admin-token-0123456789";
  private static final List<String> PATHS = List.of("/_cryo/status", "/_cryo/status.json",
      "/_cryo/metrics");

  /** An application that answers every request 200 "app": whoever reaches it is not admin. */
  private static final Upstream APPLICATION = new Upstream() {
    @Override
    public boolean knowsConnection(String connectionId) {
      return true;
    }

    @Override
    public Reply serve(Request request) {
      return new Reply(200, List.of(), "app".getBytes(StandardCharsets.UTF_8));
    }
  };

  private final HttpClient http = HttpClient.newHttpClient();
  private Admin admin;
  private Front front;
  private AdminListener adminPort;

  @AfterEach
  void stop() {
    if (front != null) {
      front.close();
    }
    if (admin != null) {
      admin.close();
    }
    http.close();
  }

  private void start(String token) {
    admin = Admin.builder(() -> Statuses.running("main_0001", 3, "main_0002", 1))
        .token(token == null ? null : AdminToken.of(token)).build();
    Front.Builder builder = Front.builder(APPLICATION).port(0)
        .requestListener(admin.requestListener());
    admin.publicHandler().ifPresent(builder::addCryoHandler);
    front = builder.build();
    front.start();
    adminPort = admin.listen("127.0.0.1", 0);
  }

  private HttpResponse<String> get(int port, String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + path));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), BodyHandlers.ofString());
  }

  @Test
  void withoutATokenTheAdminPortServesAndThePublicPortDoesNot() throws Exception {
    start(null);
    for (String path : PATHS) {
      assertThat(get(adminPort.port(), path, null).statusCode()).as(path).isEqualTo(200);
      HttpResponse<String> onPublic = get(front.port(), path, null);
      assertThat(onPublic.statusCode()).as(path).isEqualTo(404);
      assertThat(onPublic.body()).doesNotContain("main_0001");
    }
    assertThat(get(front.port(), "/anything", null).body()).isEqualTo("app");
  }

  @Test
  void withATokenBothPortsServeOnlyWithIt() throws Exception {
    start(TOKEN);
    for (int port : new int[] {adminPort.port(), front.port()}) {
      for (String path : PATHS) {
        HttpResponse<String> none = get(port, path, null);
        assertThat(none.statusCode()).as(port + path).isEqualTo(401);
        assertThat(none.headers().allValues("www-authenticate"))
            .anyMatch(value -> value.startsWith("Bearer"))
            .anyMatch(value -> value.startsWith("Basic"));
        assertThat(none.body()).contains("admin_token_required").doesNotContain("main_0001");
        HttpResponse<String> wrong = get(port, path, "Bearer " + TOKEN + "!");
        assertThat(wrong.statusCode()).as(port + path).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("main_0001");
        assertThat(get(port, path, "Bearer " + TOKEN).statusCode()).as(port + path)
            .isEqualTo(200);
      }
    }
    // other paths of cryo's stay 404 on the public port, token or not; the application is open
    assertThat(get(front.port(), "/_cryo/other", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
    assertThat(get(front.port(), "/anything", null).body()).isEqualTo("app");
  }

  @Test
  void theStatusJsonIsTheStatusShapeWithAlive() throws Exception {
    start(null);
    HttpResponse<String> response = get(adminPort.port(), "/_cryo/status.json", null);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode served = new ObjectMapper().readTree(response.body());
    JsonNode expected = new ObjectMapper().readTree(
        Statuses.running("main_0001", 3, "main_0002", 1).toJson(true));
    assertThat(served).isEqualTo(expected);
    assertThat(served.path("alive").asBoolean()).isTrue();
    assertThat(served.path("freezer").path("bytes").asLong()).isEqualTo(12345);
  }

  @Test
  void onlyGetIsServed() throws Exception {
    start(null);
    HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + adminPort.port() + "/_cryo/status.json"))
        .POST(BodyPublishers.ofString("{}")).build(), BodyHandlers.ofString());
    assertThat(posted.statusCode()).isEqualTo(405);
    assertThat(posted.headers().firstValue("allow")).hasValue("GET, HEAD");
  }

  @Test
  void theAdminPortGoesToTheNetworkOnlyWithAToken() {
    admin = Admin.builder(() -> Statuses.running("main_0001", 0)).build();
    assertThatThrownBy(() -> admin.listen("0.0.0.0", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a loopback address").hasMessageContaining("--admin-token");
    assertThat(Admin.isLoopbackAddress("127.0.0.1")).isTrue();
    assertThat(Admin.isLoopbackAddress("::1")).isTrue();
    assertThat(Admin.isLoopbackAddress("0.0.0.0")).isFalse();
  }

  @Test
  void theLiveStreamSendsTheDocumentAtOnce() throws Exception {
    start(null);
    HttpResponse<java.util.stream.Stream<String>> stream = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + adminPort.port() + "/_cryo/status/stream")).build(),
        BodyHandlers.ofLines());
    assertThat(stream.headers().firstValue("content-type")).get().asString()
        .startsWith("text/event-stream");
    String data;
    try (var lines = stream.body()) {
      data = lines.filter(line -> line.startsWith("data: ")).findFirst().orElseThrow();
    }
    JsonNode document = new ObjectMapper().readTree(data.substring("data: ".length()));
    assertThat(document.path("status").path("workers")).extracting(node -> node.path("name")
        .asText()).containsExactly("main_0001", "main_0002");
    assertThat(document.has("events")).isTrue();
    assertThat(document.path("history").isArray()).isTrue();
  }

  @Test
  void aHeadOnTheLiveStreamAnswersTheHeadersAndEnds() throws Exception {
    start(null);
    // Over a raw socket with "Connection: close": the server closes once the answer has ended; a
    // stream that goes on never closes, and the read times out.
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", adminPort.port())) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(("HEAD /_cryo/status/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      String answer;
      try {
        answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      } catch (java.net.SocketTimeoutException e) {
        throw new AssertionError("a HEAD on the live stream did not end within 20 s", e);
      }
      assertThat(answer).startsWith("HTTP/1.1 200").containsIgnoringCase(
          "content-type: text/event-stream").doesNotContain("data: ").doesNotContain("retry:");
    }
  }

  /** The whole answer to a GET of {@code path} sent with {@code host} as its Host, over a raw socket. */
  private String rawGet(int port, String path, String host, String authorization)
      throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
          + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void withoutATokenTheAdminPortAnswersNoRequestSentToAName() throws Exception {
    start(null);
    int port = adminPort.port();
    for (String path : PATHS) {
      String rebound = rawGet(port, path, "attacker.example:" + port, null);
      assertThat(rebound).as(path).startsWith("HTTP/1.1 403").contains("host_not_allowed")
          .doesNotContain("main_0001");
    }
    for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port,
        "LOCALHOST")) {
      assertThat(rawGet(port, "/_cryo/status.json", host, null)).as(host)
          .startsWith("HTTP/1.1 200").contains("main_0001");
    }
  }

  @Test
  void withATokenAnyHostThatProvesItIsServed() throws Exception {
    start(TOKEN);
    assertThat(rawGet(adminPort.port(), "/_cryo/status.json", "admin.example.com",
        "Bearer " + TOKEN)).startsWith("HTTP/1.1 200");
  }

  @Test
  void streamsHeldOpenCannotLockTheOperatorOut() throws Exception {
    admin = Admin.builder(() -> Statuses.running("main_0001", 3)).maxStreams(2)
        .streamInterval(java.time.Duration.ofMillis(200)).build();
    adminPort = admin.listen("127.0.0.1", 0);
    List<java.net.Socket> held = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        held.add(openStream());
      }
      java.net.Socket operator = openStream(); // a third: the oldest gives way
      held.add(operator);
      java.net.Socket oldest = held.get(0);
      oldest.setSoTimeout(20_000);
      oldest.getInputStream().readAllBytes(); // ends only if the server ended the stream
      assertThat(oldest.getInputStream().read()).as("the oldest stream ended").isEqualTo(-1);
    } finally {
      for (java.net.Socket socket : held) {
        socket.close();
      }
    }
  }

  /** Opens a live stream over a raw socket and reads up to its first document. */
  private java.net.Socket openStream() throws Exception {
    java.net.Socket socket = new java.net.Socket("127.0.0.1", adminPort.port());
    socket.setSoTimeout(20_000);
    socket.getOutputStream().write(("GET /_cryo/status/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    StringBuilder read = new StringBuilder();
    java.io.InputStream in = socket.getInputStream();
    while (!read.toString().contains("data: ")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      read.append((char) b);
    }
    assertThat(read.toString()).startsWith("HTTP/1.1 200").contains("data: ");
    return socket;
  }
}
