package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.PushSink;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The page socket against a stand-in upstream: handshake gates, channels, calls, pushes, bounds. */
class PageSocketTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration PATIENCE = Duration.ofSeconds(30);

  /** Knows the connections and pages it is told; echoes calls; may hold them on a latch. */
  static final class PagesUpstream implements Upstream {
    final Set<String> known = ConcurrentHashMap.newKeySet();
    final Map<String, String> pageConnection = new ConcurrentHashMap<>();
    final AtomicInteger served = new AtomicInteger();
    volatile boolean admits = true;
    volatile CountDownLatch hold = new CountDownLatch(0);
    volatile byte[] replyBody;
    volatile PushSink sink = PushSink.NONE;

    @Override
    public boolean knowsConnection(String connectionId) {
      return known.contains(connectionId);
    }

    @Override
    public Reply serve(Request request) {
      served.incrementAndGet();
      try {
        hold.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String page = request.headers().stream().filter(h -> h.getKey().equals("x-cryo-page"))
          .map(Map.Entry::getValue).findFirst().orElse(null);
      byte[] body = replyBody != null ? replyBody : ("{\"method\":\"" + request.method()
          + "\",\"path\":\"" + request.path() + "\",\"page\":\"" + page + "\",\"body\":"
          + (request.body().length == 0 ? "null" : new String(request.body(),
              StandardCharsets.UTF_8)) + "}").getBytes(StandardCharsets.UTF_8);
      return new Reply(200, List.of(Map.entry("content-type", "application/json")), body);
    }

    @Override
    public boolean admits() {
      return admits;
    }

    @Override
    public Optional<String> connectionOfPage(String page) {
      return Optional.ofNullable(pageConnection.get(page));
    }

    @Override
    public void pushSink(PushSink value) {
      sink = value;
    }
  }

  private final PagesUpstream upstream = new PagesUpstream();
  private final HttpClient http = HttpClient.newHttpClient();
  private Front front;
  private String secret;
  private String connection;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0)
        .socketLimits(new SocketLimits(4096, 16, 64 * 1024))
        .allowedOrigins(List.of("https://app.example"))
        .build();
    front.start();
    secret = ConnectionCookie.mint();
    connection = ConnectionCookie.connectionIdOf(secret);
    upstream.known.add(connection);
    upstream.pageConnection.put("p1", connection);
  }

  @AfterEach
  void stop() {
    upstream.hold.countDown();
    front.close();
  }

  private URI uri() {
    return URI.create("ws://127.0.0.1:" + front.port() + "/_cryo/ws");
  }

  private SocketClient connect(String cookie, String origin) {
    return SocketClient.connect(http, uri(), cookie, origin);
  }

  private SocketClient opened() throws Exception {
    SocketClient client = connect(secret, "http://127.0.0.1:" + front.port());
    client.send("{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}");
    JsonNode reply = client.next();
    assertThat(reply.path("status").asInt()).as(reply.toString()).isEqualTo(200);
    return client;
  }

  @Test
  void aCallsMethodAndPathAreCheckedAsAnHttpRequestsAre() throws Exception {
    SocketClient client = opened();
    String[][] refused = {
        {"GET", "/%5Fcryo/status", "bad_path"}, {"GET", "/api/../_cryo/metrics", "bad_path"},
        {"GET", "/a%2Fb", "bad_path"}, {"GET", "/..", "bad_path"}, {"GET", "/x?y=1", "bad_path"},
        {"GET", "//evil.example/x", "bad_path"}, {"GET POST", "/api/x", "bad_method"},
        {"GET\\r\\nX", "/api/x", "bad_method"}};
    int id = 10;
    for (String[] call : refused) {
      client.send("{\"id\":" + id + ",\"type\":\"call\",\"method\":\"" + call[0]
          + "\",\"path\":\"" + call[1] + "\"}");
      JsonNode reply = client.nextWithId(id++);
      assertThat(reply.path("status").asInt()).as(call[1]).isEqualTo(400);
      assertThat(reply.path("body").path("error").asText()).as(call[1]).isEqualTo(call[2]);
    }
    assertThat(upstream.served.get()).isZero();
    client.send("{\"id\":99,\"type\":\"call\",\"method\":\"get\",\"path\":"
        + "\"/api/../api/%78\"}");
    assertThat(client.nextWithId(99).path("body").path("path").asText()).isEqualTo("/api/x");
  }

  @Test
  void aPageOpensItsChannelAndItsCallsAreRepliedById() throws Exception {
    SocketClient client = opened();
    client.send("{\"id\":7,\"type\":\"call\",\"method\":\"post\",\"path\":\"/api/x\","
        + "\"body\":{\"n\":1}}");
    JsonNode reply = client.next();
    assertThat(reply.path("id").asInt()).isEqualTo(7);
    assertThat(reply.path("type").asText()).isEqualTo("reply");
    assertThat(reply.path("status").asInt()).isEqualTo(200);
    assertThat(reply.path("body").path("method").asText()).isEqualTo("POST");
    assertThat(reply.path("body").path("page").asText()).isEqualTo("p1");
    assertThat(reply.path("body").path("body").path("n").asInt()).isEqualTo(1);
    client.send("{\"type\":\"ping\"}");
    assertThat(client.next().path("type").asText()).isEqualTo("pong");
    assertThat(upstream.served.get()).as("a ping wakes nobody").isEqualTo(1);
    assertThat(front.sockets().open()).isEqualTo(1);
  }

  @Test
  void aPushReachesEverySocketOfItsPageAndSaysSo() throws Exception {
    SocketClient first = opened();
    SocketClient second = opened();
    assertThat(upstream.sink.deliver(connection, "p1", "{\"k\":2}".getBytes())).isTrue();
    for (SocketClient client : List.of(first, second)) {
      JsonNode push = client.next();
      assertThat(push.path("type").asText()).isEqualTo("push");
      assertThat(push.path("page").asText()).isEqualTo("p1");
      assertThat(push.path("data").path("k").asInt()).isEqualTo(2);
      assertThat(push.has("id")).isFalse();
    }
    assertThat(upstream.sink.deliver(connection, "p2", "1".getBytes())).isFalse();
    assertThat(front.sockets().pushesDelivered()).isEqualTo(1);
    assertThat(front.sockets().pushesUndelivered()).isEqualTo(1);
  }

  /**
   * The sink says whether any page is bound to a socket: while none is, the commander tells the
   * workers that a call's pushes reach no socket (they need no relay); once one is bound, every
   * push is relayed again, and when the last closes, none is bound.
   */
  @Test
  void theSinkSaysWhetherAnyPageIsBoundToASocket() throws Exception {
    assertThat(upstream.sink.anyBound()).isFalse();
    SocketClient client = opened();
    assertThat(upstream.sink.anyBound()).isTrue();
    client.close();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (upstream.sink.anyBound() && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling a condition, with a generous bound
    }
    assertThat(upstream.sink.anyBound()).as("the closed socket is unbound").isFalse();
  }

  @Test
  void withoutACookieOrWithAnUnknownOneTheSocketIsClosedWith1008() throws Exception {
    assertThat(connect(null, null).closeCode()).isEqualTo(1008);
    assertThat(connect(ConnectionCookie.mint(), null).closeCode()).isEqualTo(1008);
    assertThat(connect("not-a-cookie", null).closeCode()).isEqualTo(1008);
  }

  @Test
  void aCrossOriginHandshakeIsRefusedUnlessItsOriginIsAllowed() throws Exception {
    try {
      connect(secret, "https://evil.example");
      throw new AssertionError("a cross-origin handshake was accepted");
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(WebSocketHandshakeException.class);
      assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
          .isEqualTo(403);
    }
    SocketClient allowed = connect(secret, "https://app.example");
    allowed.send("{\"type\":\"ping\"}");
    assertThat(allowed.next().path("type").asText()).isEqualTo("pong");
  }

  @Test
  void whileTheRunAdmitsNothingNewTheSocketIsClosedWith1013() throws Exception {
    upstream.admits = false;
    assertThat(connect(secret, null).closeCode()).isEqualTo(1013);
  }

  @Test
  void aPageOfAnotherConnectionIsRefused403AndItsCallsFind409() throws Exception {
    upstream.pageConnection.put("theirs", "another-connection");
    SocketClient client = connect(secret, null);
    client.send("{\"id\":1,\"type\":\"open\",\"page\":\"theirs\"}");
    JsonNode refused = client.next();
    assertThat(refused.path("status").asInt()).isEqualTo(403);
    assertThat(refused.path("body").path("error").asText()).isEqualTo("foreign_page");
    client.send("{\"id\":2,\"type\":\"call\",\"page\":\"theirs\",\"path\":\"/x\"}");
    assertThat(client.next().path("status").asInt()).isEqualTo(409);
    assertThat(upstream.served.get()).isZero();
    assertThat(upstream.sink.deliver("another-connection", "theirs", "1".getBytes())).isFalse();
  }

  @Test
  void anOversizedMessageClosesTheSocketWith1009() throws Exception {
    SocketClient client = opened();
    client.send("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(5000) + "\"}");
    assertThat(client.closeCode()).isEqualTo(1009);
  }

  @Test
  void pastSixteenCallsInFlightTheRestAreAnswered429() throws Exception {
    upstream.hold = new CountDownLatch(1);
    SocketClient client = opened();
    for (int i = 0; i < 20; i++) {
      client.send("{\"id\":" + (100 + i) + ",\"type\":\"call\",\"path\":\"/slow\"}");
    }
    for (int i = 0; i < 4; i++) {
      JsonNode refused = client.next();
      assertThat(refused.path("status").asInt()).as(refused.toString()).isEqualTo(429);
      assertThat(refused.path("body").path("error").asText()).isEqualTo("too_many_calls");
    }
    upstream.hold.countDown();
    for (int i = 0; i < 16; i++) {
      assertThat(client.next().path("status").asInt()).isEqualTo(200);
    }
    assertThat(upstream.served.get()).isEqualTo(16);
  }

  @Test
  void aReaderThatNeverReadsIsClosedOnceItsQueueIsFull() throws Exception {
    upstream.replyBody = ("{\"pad\":\"" + "y".repeat(3000) + "\"}").getBytes();
    try (Socket raw = new Socket()) {
      raw.setReceiveBufferSize(4096);
      raw.connect(new java.net.InetSocketAddress("127.0.0.1", front.port()));
      OutputStream out = raw.getOutputStream();
      out.write(SocketClient.rawHandshake("127.0.0.1", front.port(), secret));
      InputStream in = raw.getInputStream();
      assertThat(SocketClient.readHead(in)).startsWith("HTTP/1.1 101");
      SocketClient.frame(out, "{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}");
      // never read again: pushes pile up in the kernel's buffers, then in the front's queue
      Poll.until("the slow reader is closed", () -> {
        if (front.sockets().slowReadersClosed() > 0) {
          return true;
        }
        upstream.sink.deliver(connection, "p1", upstream.replyBody);
        return false;
      });
      assertThat(front.sockets().open()).isZero();
    }
    SocketClient healthy = opened();
    healthy.send("{\"id\":2,\"type\":\"call\",\"path\":\"/still\"}");
    assertThat(healthy.next().path("status").asInt()).isEqualTo(200);
  }

  /** Bounded polling on a condition. */
  static final class Poll {
    static void until(String what, java.util.function.BooleanSupplier condition)
        throws InterruptedException {
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("gave up waiting until " + what);
        }
        Thread.sleep(2);
      }
    }
  }
}
