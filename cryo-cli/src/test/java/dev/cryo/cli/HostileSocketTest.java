package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile page sockets against a real {@code cryo serve}: each is refused or closed as
 * docs/socket.md says, and the run goes on serving everybody else.
 */
class HostileSocketTest {

  @TempDir static Path scratch;
  static ServeRun run;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void serve() throws Exception {
    run = ServeRun.serving(scratch.resolve("home"));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertStillServing();
    } finally {
      run.close();
    }
  }

  /** Another user is still served 200, his page socket works: the commander is unaffected. */
  private static void assertStillServing() throws Exception {
    DemoClient other = new DemoClient(HTTP, run.base());
    String page = other.openPage();
    assertThat(other.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
    Listener socket = connect(other.cookie(), null);
    socket.send("{\"id\":1,\"type\":\"open\",\"page\":\"" + page + "\"}");
    assertThat(socket.next().path("status").asInt()).isEqualTo(200);
    socket.send("{\"id\":2,\"type\":\"call\",\"method\":\"POST\",\"path\":\"/api/counter\","
        + "\"body\":{\"page\":\"" + page + "\"}}");
    JsonNode reply = socket.nextWithId(2);
    assertThat(reply.path("status").asInt()).isEqualTo(200);
    assertThat(reply.path("body").path("counter").asLong()).isEqualTo(2);
  }

  /** The JDK's WebSocket client, keeping every message and the close code. */
  static final class Listener implements WebSocket.Listener {
    final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Integer> closed = new CompletableFuture<>();
    final StringBuilder partial = new StringBuilder();
    WebSocket socket;

    @Override
    public CompletableFuture<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          messages.add(DemoClient.JSON.readTree(partial.toString()));
        } catch (IOException e) {
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

    void send(String text) {
      socket.sendText(text, true).join();
    }

    JsonNode next() throws InterruptedException {
      JsonNode message = messages.poll(Poll.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(message).as("a message within " + Poll.PATIENCE).isNotNull();
      return message;
    }

    /** The next message carrying {@code id} (pushes and other replies are skipped). */
    JsonNode nextWithId(int id) throws InterruptedException {
      while (true) {
        JsonNode message = next();
        if (message.path("id").asInt(-1) == id) {
          return message;
        }
      }
    }

    int closeCode() throws Exception {
      return closed.get(Poll.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static URI socketUri() {
    return URI.create("ws://" + run.base().getHost() + ":" + run.base().getPort() + "/_cryo/ws");
  }

  static Listener connect(String cookie, String origin) {
    Listener listener = new Listener();
    WebSocket.Builder builder = HTTP.newWebSocketBuilder();
    if (cookie != null) {
      builder.header("Cookie", "cryo_connection=" + cookie);
    }
    if (origin != null) {
      builder.header("Origin", origin);
    }
    listener.socket = builder.buildAsync(socketUri(), listener).join();
    return listener;
  }

  @Test
  void withoutACookieTheSocketIsClosedWith1008() throws Exception {
    assertThat(connect(null, null).closeCode()).isEqualTo(1008);
  }

  @Test
  void aForeignCookieIsClosedWith1008() throws Exception {
    assertThat(connect("AAAAAAAAAAAAAAAAAAAAAA", null).closeCode()).isEqualTo(1008);
  }

  @Test
  void aPageOfAnotherConnectionIsRefused403() throws Exception {
    DemoClient victim = new DemoClient(HTTP, run.base());
    String theirs = victim.openPage();
    DemoClient thief = new DemoClient(HTTP, run.base());
    thief.openPage();
    Listener socket = connect(thief.cookie(), null);
    socket.send("{\"id\":1,\"type\":\"open\",\"page\":\"" + theirs + "\"}");
    JsonNode refused = socket.next();
    assertThat(refused.path("status").asInt()).isEqualTo(403);
    assertThat(refused.path("body").path("error").asText()).isEqualTo("foreign_page");
    socket.send("{\"id\":2,\"type\":\"call\",\"page\":\"" + theirs + "\",\"method\":\"POST\","
        + "\"path\":\"/api/counter\",\"body\":{\"page\":\"" + theirs + "\"}}");
    assertThat(socket.next().path("status").asInt()).isEqualTo(409);
    assertThat(victim.get("/api/state?page=" + theirs).number("pageCounter")).isZero();
  }

  @Test
  void aCrossOriginHandshakeIsRefused403() throws Exception {
    DemoClient client = new DemoClient(HTTP, run.base());
    client.openPage();
    try {
      connect(client.cookie(), "http://evil.example");
      throw new AssertionError("a cross-origin handshake was accepted");
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(WebSocketHandshakeException.class);
      assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
          .isEqualTo(403);
    }
  }

  @Test
  void anOversizedMessageIsClosedWith1009() throws Exception {
    DemoClient client = new DemoClient(HTTP, run.base());
    client.openPage();
    Listener socket = connect(client.cookie(), null);
    socket.send("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(70 * 1024) + "\"}");
    assertThat(socket.closeCode()).isEqualTo(1009);
  }

  @Test
  void aBurstOfCallsIsAnsweredEachWithinTheCeiling() throws Exception {
    DemoClient client = new DemoClient(HTTP, run.base());
    String page = client.openPage();
    Listener socket = connect(client.cookie(), null);
    socket.send("{\"id\":0,\"type\":\"open\",\"page\":\"" + page + "\"}");
    assertThat(socket.next().path("status").asInt()).isEqualTo(200);
    int calls = 60;
    for (int i = 1; i <= calls; i++) {
      socket.send("{\"id\":" + i + ",\"type\":\"call\",\"method\":\"POST\",\"path\":"
          + "\"/api/counter\",\"body\":{\"page\":\"" + page + "\"}}");
    }
    int served = 0;
    int refused = 0;
    for (int i = 0; i < calls; i++) {
      JsonNode reply = socket.next();
      while (!reply.path("type").asText().equals("reply")) {
        reply = socket.next(); // the pushes of the clicks
      }
      int status = reply.path("status").asInt();
      assertThat(status).as(reply.toString()).isIn(200, 429);
      if (status == 200) {
        served++;
      } else {
        refused++;
        assertThat(reply.path("body").path("error").asText()).isEqualTo("too_many_calls");
      }
    }
    assertThat(served + refused).isEqualTo(calls);
    assertThat(client.get("/api/state?page=" + page).number("counter")).isEqualTo(served);
  }

  @Test
  void aReaderThatNeverReadsIsCut() throws Exception {
    DemoClient client = new DemoClient(HTTP, run.base());
    String page = client.openPage();
    try (Socket raw = new Socket()) {
      raw.setReceiveBufferSize(4096);
      raw.connect(new InetSocketAddress(run.base().getHost(), run.base().getPort()));
      OutputStream out = raw.getOutputStream();
      out.write(("GET /_cryo/ws HTTP/1.1\r\nHost: " + run.base().getHost() + ":"
          + run.base().getPort() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
          + "Cookie: cryo_connection=" + client.cookie() + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      InputStream in = raw.getInputStream();
      assertThat(readHead(in)).startsWith("HTTP/1.1 101");
      frame(out, "{\"id\":0,\"type\":\"open\",\"page\":\"" + page + "\"}");
      // ask for the demo's page (kilobytes each) again and again, and never read a reply
      boolean cut = false;
      raw.setSoTimeout(1000);
      long deadline = System.nanoTime() + Poll.PATIENCE.toNanos();
      for (int i = 1; !cut && System.nanoTime() < deadline; i++) {
        try {
          frame(out, "{\"id\":" + i + ",\"type\":\"call\",\"method\":\"GET\",\"path\":\"/\"}");
        } catch (IOException e) {
          cut = true; // the front closed the connection under us
        }
      }
      assertThat(cut).as("the front cut the reader that never reads").isTrue();
    }
  }

  private static String readHead(InputStream in) throws IOException {
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
  private static void frame(OutputStream out, String text) throws IOException {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    frame.write(0x81);
    if (payload.length < 126) {
      frame.write(0x80 | payload.length);
    } else {
      frame.write(0x80 | 126);
      frame.write(payload.length >> 8);
      frame.write(payload.length & 0xff);
    }
    byte[] mask = {7, 1, 3, 5};
    frame.write(mask);
    for (int i = 0; i < payload.length; i++) {
      frame.write(payload[i] ^ mask[i % 4]);
    }
    out.write(frame.toByteArray());
    out.flush();
  }
}
