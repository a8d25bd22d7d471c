package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every request and every socket call gets an id of the front's ({@link RequestIds}): sent to the
 * upstream as the one {@code cryo-request-id} header, never the client's, answered in
 * {@code Cryo-Request-Id}, different each time.
 */
class RequestIdsTest {

  /** Records what reached it; knows its connections and page p1; answers with what it was sent. */
  static final class Recording implements Upstream {
    final Set<String> known = ConcurrentHashMap.newKeySet();
    final Map<String, String> pages = new ConcurrentHashMap<>();
    final List<Request> seen = new CopyOnWriteArrayList<>();

    @Override
    public boolean knowsConnection(String connectionId) {
      return known.contains(connectionId);
    }

    @Override
    public Reply serve(Request request) {
      seen.add(request);
      known.add(request.connectionId());
      String ids = String.join(",", request.headers().stream()
          .filter(header -> header.getKey().equalsIgnoreCase("cryo-request-id"))
          .map(Map.Entry::getValue).toList());
      return new Reply(200, List.of(Map.entry("content-type", "application/json"),
          Map.entry("Cryo-Request-Id", "set-by-the-application")),
          ("{\"ids\":\"" + ids + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Optional<String> connectionOfPage(String page) {
      return Optional.ofNullable(pages.get(page));
    }
  }

  private final Recording upstream = new Recording();
  private final HttpClient http = HttpClient.newHttpClient();
  private Front front;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0).maxBody(100).build();
    front.start();
  }

  @AfterEach
  void stop() {
    front.close();
    http.close();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + front.port() + path);
  }

  @Test
  void eachRequestIsAnsweredWithTheOneIdTheUpstreamGotNeverTheClients() throws Exception {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> reply = http.send(HttpRequest.newBuilder(uri("/api/x"))
          .header("Cryo-Request-Id", "forged-by-the-client").build(), BodyHandlers.ofString());
      List<String> answered = reply.headers().allValues("Cryo-Request-Id");
      assertThat(answered).hasSize(1);
      String id = answered.get(0);
      assertThat(id).matches("[A-Za-z0-9_-]{16}");
      assertThat(reply.body()).isEqualTo("{\"ids\":\"" + id + "\"}"); // the one the upstream got
      ids.add(id);
    }
    assertThat(ids).hasSize(5);

    HttpResponse<String> refused = http.send(HttpRequest.newBuilder(uri("/api/x"))
        .POST(BodyPublishers.ofString("x".repeat(200))).build(), BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(413);
    assertThat(refused.headers().firstValue("Cryo-Request-Id")).get().asString()
        .matches("[A-Za-z0-9_-]{16}").isNotIn(ids);
  }

  @Test
  void eachSocketCallIsARequestOfItsOwn() throws Exception {
    String secret = ConnectionCookie.mint();
    String connection = ConnectionCookie.connectionIdOf(secret);
    upstream.known.add(connection);
    upstream.pages.put("p1", connection);
    SocketClient client = SocketClient.connect(http,
        URI.create("ws://127.0.0.1:" + front.port() + "/_cryo/ws"), secret,
        "http://127.0.0.1:" + front.port());
    try {
      client.send("{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}");
      assertThat(client.nextWithId(1).path("status").asInt()).isEqualTo(200);
      Set<String> ids = new HashSet<>();
      for (int call = 2; call < 5; call++) {
        client.send("{\"id\":" + call + ",\"type\":\"call\",\"method\":\"GET\",\"path\":\"/api/x\"}");
        JsonNode reply = client.nextWithId(call);
        String id = reply.path("headers").path("cryo-request-id").asText();
        assertThat(id).matches("[A-Za-z0-9_-]{16}");
        assertThat(reply.path("body").path("ids").asText()).isEqualTo(id);
        ids.add(id);
      }
      assertThat(ids).hasSize(3);
    } finally {
      client.close();
    }
  }
}
