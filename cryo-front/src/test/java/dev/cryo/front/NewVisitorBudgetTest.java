package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The budget of new visitors per client address, over real sockets: a request without a known
 * cookie past its address's budget is answered 429 before the upstream sees it, nothing minted; a
 * known cookie is never charged; another address has its own budget.
 */
class NewVisitorBudgetTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final FrontTest.EchoUpstream upstream = new FrontTest.EchoUpstream();
  private Front front;

  @AfterEach
  void stop() {
    front.close();
  }

  /** One answer: its status, its head (lower-cased names) and its body. */
  private record Answer(int status, String head, String body) {
    String header(String name) {
      for (String line : head.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith(name + ":")) {
          return line.substring(name.length() + 1).strip();
        }
      }
      return null;
    }
  }

  /** A GET of {@code /api/state} sent from {@code from} (127.0.0.x), with {@code cookie} or none. */
  private Answer get(String from, String cookie) throws IOException {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
      socket.connect(new InetSocketAddress("127.0.0.1", front.port()));
      socket.setSoTimeout((int) SocketClient.PATIENCE.toMillis());
      String request = "GET /api/state HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
          + (cookie == null ? "" : "Cookie: cryo_connection=" + cookie + "\r\n") + "\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      String head = SocketClient.readHead(socket.getInputStream());
      String body = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Answer(Integer.parseInt(head.split(" ")[1]), head, body);
    }
  }

  private static String cookieOf(Answer answer) {
    String set = answer.header("set-cookie");
    assertThat(set).as(answer.head()).startsWith("cryo_connection=");
    return set.substring("cryo_connection=".length(), set.indexOf(';'));
  }

  @Test
  void pastItsBudgetANewVisitorIsRefusedBeforeTheRunIsAskedAndAKnownCookieNeverIs()
      throws Exception {
    // One token every 10 s: the refill cannot reach a token within the test on a slow machine.
    front = Front.builder(upstream).port(0).bind("0.0.0.0")
        .newVisitors(new NewVisitorBudget(0.1, 3)).build();
    front.start();

    String kept = null;
    for (int i = 0; i < 3; i++) {
      Answer admitted = get("127.0.0.1", null);
      assertThat(admitted.status()).as(admitted.head()).isEqualTo(200);
      kept = cookieOf(admitted);
    }
    Answer refused = get("127.0.0.1", null);
    assertThat(refused.status()).as(refused.head()).isEqualTo(429);
    assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 10L);
    assertThat(refused.header("set-cookie")).as("nothing minted").isNull();
    JsonNode body = JSON.readTree(refused.body());
    assertThat(body.path("error").asText()).isEqualTo("too_many_new_visitors");
    assertThat(body.path("message").asText()).contains("Nothing was created")
        .contains("cookie").contains("--new-visitors-per-address");
    assertThat(upstream.seen).as("the refused never reached the run").hasSize(3);

    Answer forged = get("127.0.0.1", "AAAAAAAAAAAAAAAAAAAAAA");
    assertThat(forged.status()).as("an unknown cookie is a new visitor").isEqualTo(429);

    for (int i = 0; i < 5; i++) {
      Answer known = get("127.0.0.1", kept);
      assertThat(known.status()).as("a known cookie is never charged").isEqualTo(200);
      assertThat(known.header("set-cookie")).isNull();
    }
    Answer other = get("127.0.0.2", null);
    assertThat(other.status()).as("another address, its own budget").isEqualTo(200);

    assertThat(front.limits().newVisitorsRefused()).isEqualTo(2);
    assertThat(front.limits().newVisitors()).isEqualTo(new NewVisitorBudget(0.1, 3));
    assertThat(upstream.seen).hasSize(3 + 5 + 1);
  }

  @Test
  void withoutABudgetEveryNewVisitorIsServed() throws Exception {
    front = Front.builder(upstream).port(0).bind("0.0.0.0").build();
    front.start();
    for (int i = 0; i < 20; i++) {
      assertThat(get("127.0.0.1", null).status()).isEqualTo(200);
    }
    assertThat(front.limits().newVisitors().off()).isTrue();
    assertThat(front.limits().newVisitorsRefused()).isZero();
  }
}
