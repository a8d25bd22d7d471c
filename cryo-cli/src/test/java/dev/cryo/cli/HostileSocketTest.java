package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.front.SocketClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionException;
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
    SocketClient socket = connect(other.cookie(), null);
    socket.send("{\"id\":1,\"type\":\"open\",\"page\":\"" + page + "\"}");
    assertThat(socket.next().path("status").asInt()).isEqualTo(200);
    socket.send("{\"id\":2,\"type\":\"call\",\"method\":\"POST\",\"path\":\"/api/counter\","
        + "\"body\":{\"page\":\"" + page + "\"}}");
    JsonNode reply = socket.nextWithId(2);
    assertThat(reply.path("status").asInt()).isEqualTo(200);
    assertThat(reply.path("body").path("counter").asLong()).isEqualTo(2);
  }

  private static URI socketUri() {
    return URI.create("ws://" + run.base().getHost() + ":" + run.base().getPort() + "/_cryo/ws");
  }

  static SocketClient connect(String cookie, String origin) {
    return SocketClient.connect(HTTP, socketUri(), cookie, origin);
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
    SocketClient socket = connect(thief.cookie(), null);
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
    SocketClient socket = connect(client.cookie(), null);
    socket.send("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(70 * 1024) + "\"}");
    assertThat(socket.closeCode()).isEqualTo(1009);
  }

  @Test
  void aBurstOfCallsIsAnsweredEachWithinTheCeiling() throws Exception {
    DemoClient client = new DemoClient(HTTP, run.base());
    String page = client.openPage();
    SocketClient socket = connect(client.cookie(), null);
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
      JsonNode reply = socket.nextReply(); // the clicks' pushes skipped
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
      out.write(SocketClient.rawHandshake(run.base().getHost(), run.base().getPort(),
          client.cookie()));
      InputStream in = raw.getInputStream();
      assertThat(SocketClient.readHead(in)).startsWith("HTTP/1.1 101");
      SocketClient.frame(out, "{\"id\":0,\"type\":\"open\",\"page\":\"" + page + "\"}");
      // ask for the demo's page (kilobytes each) again and again, and never read a reply
      boolean cut = false;
      raw.setSoTimeout(1000);
      long deadline = System.nanoTime() + Poll.PATIENCE.toNanos();
      for (int i = 1; !cut && System.nanoTime() < deadline; i++) {
        try {
          SocketClient.frame(out, "{\"id\":" + i + ",\"type\":\"call\",\"method\":\"GET\","
              + "\"path\":\"/\"}");
        } catch (IOException e) {
          cut = true; // the front closed the connection under us
        }
      }
      assertThat(cut).as("the front cut the reader that never reads").isTrue();
    }
  }
}
