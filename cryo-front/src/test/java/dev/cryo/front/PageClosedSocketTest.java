package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A page the server closed ({@code PushSink.pageClosed}, as the commander tells it) leaves its
 * sockets: one left without pages is closed with 4404 {@code page_closed} once its calls are
 * answered; one with other pages is told {@code {"type":"page_closed"}} and stays open.
 */
class PageClosedSocketTest {

  private final PageSocketTest.PagesUpstream upstream = new PageSocketTest.PagesUpstream();
  private final HttpClient http = HttpClient.newHttpClient();
  private Front front;
  private String secret;
  private String connection;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0).build();
    front.start();
    secret = ConnectionCookie.mint();
    connection = ConnectionCookie.connectionIdOf(secret);
    upstream.known.add(connection);
    upstream.pageConnection.put("p1", connection);
    upstream.pageConnection.put("p2", connection);
  }

  @AfterEach
  void stop() {
    upstream.hold.countDown();
    front.close();
    http.shutdownNow(); // a close would wait for the sockets a test leaves open
  }

  private SocketClient opened(String... pages) throws Exception {
    SocketClient client = SocketClient.connect(http,
        URI.create("ws://127.0.0.1:" + front.port() + "/_cryo/ws"), secret,
        "http://127.0.0.1:" + front.port());
    int id = 1;
    for (String page : pages) {
      client.send("{\"id\":" + id + ",\"type\":\"open\",\"page\":\"" + page + "\"}");
      assertThat(client.nextWithId(id++).path("status").asInt()).isEqualTo(200);
    }
    return client;
  }

  @Test
  void aSocketWhoseOnlyPageIsClosedIsClosedWith4404() throws Exception {
    SocketClient client = opened("p1");
    upstream.sink.pageClosed(connection, "p1");
    assertThat(client.closeCode()).isEqualTo(4404);
    assertThat(client.closeReason()).isEqualTo("page_closed");
  }

  @Test
  void aPageOfAnotherConnectionClosesNothing() throws Exception {
    SocketClient client = opened("p1");
    upstream.sink.pageClosed("another-connection", "p1");
    client.send("{\"id\":9,\"type\":\"call\",\"page\":\"p1\",\"path\":\"/api/x\"}");
    assertThat(client.nextWithId(9).path("status").asInt()).isEqualTo(200);
    assertThat(client.isClosed()).isFalse();
  }

  @Test
  void theCallInFlightIsAnsweredBeforeTheClose() throws Exception {
    SocketClient client = opened("p1");
    upstream.hold = new CountDownLatch(1);
    client.send("{\"id\":7,\"type\":\"call\",\"page\":\"p1\",\"path\":\"/api/close-me\"}");
    PageSocketTest.Poll.until("the call reached the upstream", () -> upstream.served.get() == 1);
    upstream.sink.pageClosed(connection, "p1"); // as the fold of the call's own closePage
    upstream.hold.countDown();
    JsonNode reply = client.nextWithId(7);
    assertThat(reply.path("status").asInt()).isEqualTo(200);
    assertThat(client.closeCode()).isEqualTo(4404);
  }

  @Test
  void aSocketWithOtherPagesIsToldAndStaysOpenForThem() throws Exception {
    SocketClient client = opened("p1", "p2");
    upstream.sink.pageClosed(connection, "p1");
    JsonNode told = client.next();
    assertThat(told.path("type").asText()).isEqualTo("page_closed");
    assertThat(told.path("page").asText()).isEqualTo("p1");
    client.send("{\"id\":8,\"type\":\"call\",\"page\":\"p1\",\"path\":\"/api/x\"}");
    assertThat(client.nextWithId(8).path("body").path("error").asText())
        .isEqualTo("channel_not_open");
    client.send("{\"id\":9,\"type\":\"call\",\"page\":\"p2\",\"path\":\"/api/x\"}");
    assertThat(client.nextWithId(9).path("status").asInt()).isEqualTo(200);
    assertThat(client.isClosed()).isFalse();
  }
}
