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
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
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

  /** A JDK WebSocket client that keeps every message and the close. */
  static final class Client implements WebSocket.Listener {
    final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Integer> closed = new CompletableFuture<>();
    final StringBuilder partial = new StringBuilder();
    WebSocket socket;

    @Override
    public CompletableFuture<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          messages.add(JSON.readTree(partial.toString()));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        partial.setLength(0);
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletableFuture<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      closed.complete(statusCode);
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      closed.complete(-1);
    }

    JsonNode next() throws InterruptedException {
      JsonNode message = messages.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(message).as("a message within " + PATIENCE).isNotNull();
      return message;
    }

    void send(String text) {
      socket.sendText(text, true).join();
    }

    int closeCode() throws Exception {
      return closed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
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

  private Client connect(String cookie, String origin) {
    Client client = new Client();
    WebSocket.Builder builder = http.newWebSocketBuilder();
    if (cookie != null) {
      builder.header("Cookie", "cryo_connection=" + cookie);
    }
    if (origin != null) {
      builder.header("Origin", origin);
    }
    client.socket = builder.buildAsync(uri(), client).join();
    return client;
  }

  private Client opened() throws Exception {
    Client client = connect(secret, "http://127.0.0.1:" + front.port());
    client.send("{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}");
    JsonNode reply = client.next();
    assertThat(reply.path("status").asInt()).as(reply.toString()).isEqualTo(200);
    return client;
  }

  @Test
  void aPageOpensItsChannelAndItsCallsAreRepliedById() throws Exception {
    Client client = opened();
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
    Client first = opened();
    Client second = opened();
    assertThat(upstream.sink.deliver(connection, "p1", "{\"k\":2}".getBytes())).isTrue();
    for (Client client : List.of(first, second)) {
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
    Client allowed = connect(secret, "https://app.example");
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
    Client client = connect(secret, null);
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
    Client client = opened();
    client.send("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(5000) + "\"}");
    assertThat(client.closeCode()).isEqualTo(1009);
  }

  @Test
  void pastSixteenCallsInFlightTheRestAreAnswered429() throws Exception {
    upstream.hold = new CountDownLatch(1);
    Client client = opened();
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
      out.write(("GET /_cryo/ws HTTP/1.1\r\nHost: 127.0.0.1:" + front.port() + "\r\nUpgrade:"
          + " websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          + "Sec-WebSocket-Version: 13\r\nCookie: cryo_connection=" + secret + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      InputStream in = raw.getInputStream();
      String head = readHead(in);
      assertThat(head).as(() -> head + rest(in)).startsWith("HTTP/1.1 101");
      frame(out, "{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}");
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
    Client healthy = opened();
    healthy.send("{\"id\":2,\"type\":\"call\",\"path\":\"/still\"}");
    assertThat(healthy.next().path("status").asInt()).isEqualTo(200);
  }

  private static String rest(InputStream in) {
    try {
      return new String(in.readNBytes(700), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static String readHead(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    return head.toString();
  }

  /** One masked text frame, as a client must send it. */
  static void frame(OutputStream out, String text) throws Exception {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
    frame.write(0x81);
    if (payload.length < 126) {
      frame.write(0x80 | payload.length);
    } else {
      frame.write(0x80 | 126);
      frame.write(payload.length >> 8);
      frame.write(payload.length & 0xff);
    }
    byte[] mask = {1, 2, 3, 4};
    frame.write(mask);
    for (int i = 0; i < payload.length; i++) {
      frame.write(payload[i] ^ mask[i % 4]);
    }
    out.write(frame.toByteArray());
    out.flush();
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
