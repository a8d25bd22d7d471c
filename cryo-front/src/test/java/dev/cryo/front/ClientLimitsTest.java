package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one client may hold of the public port, over real sockets: connections in total and per
 * address, how long a request may take to arrive, page sockets in total and per connection.
 */
class ClientLimitsTest {

  private final FrontTest.EchoUpstream upstream = new FrontTest.EchoUpstream();
  private final List<Socket> opened = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private Front front;

  private void start(ClientLimits limits) {
    front = Front.builder(upstream).port(0).bind("0.0.0.0").clientLimits(limits).build();
    front.start();
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket socket : opened) {
      socket.close();
    }
    front.close();
    http.shutdownNow(); // close() would wait for the sockets still open

  }

  /** A TCP connection to the port from {@code from} (127.0.0.x: each is another address). */
  private Socket connect(String from) throws IOException {
    Socket socket = new Socket();
    opened.add(socket);
    socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    socket.connect(new InetSocketAddress("127.0.0.1", front.port()));
    socket.setSoTimeout((int) SocketClient.PATIENCE.toMillis());
    return socket;
  }

  /** Sends a GET on {@code socket} and returns the status line of its answer. */
  private static String get(Socket socket) throws IOException {
    socket.getOutputStream().write("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    return SocketClient.readHead(socket.getInputStream()).lines().findFirst().orElse("");
  }

  /** Whether the server closed {@code socket} without a byte (waits up to the patience). */
  private static boolean closedByServer(Socket socket) throws IOException {
    try {
      return socket.getInputStream().read() == -1;
    } catch (SocketException reset) {
      return true;
    }
  }

  @Test
  void oneAddressGetsItsShareOfConnectionsAndTheOthersAreServed() throws Exception {
    start(new ClientLimits(4, 2, Duration.ofSeconds(30), 10, 10));
    Socket first = connect("127.0.0.1");
    Socket second = connect("127.0.0.1");
    assertThat(get(first)).contains("200");
    assertThat(get(second)).contains("200");

    assertThat(closedByServer(connect("127.0.0.1"))).isTrue();
    assertThat(get(connect("127.0.0.2"))).contains("200");
    assertThat(get(connect("127.0.0.3"))).contains("200");
    assertThat(closedByServer(connect("127.0.0.4"))).as("over the total").isTrue();
    assertThat(front.limits().connectionsRefused()).isEqualTo(2);
    assertThat(front.limits().connectionsOpen()).isEqualTo(4);

    first.close();
    long deadline = System.nanoTime() + SocketClient.PATIENCE.toNanos();
    while (front.limits().connectionsOpen() > 3 && System.nanoTime() < deadline) {
      Thread.sleep(10); // poll until
    }
    assertThat(get(connect("127.0.0.1"))).contains("200");
  }

  @Test
  void aRequestTricklingInPastTheTimeoutIsCut() throws Exception {
    start(new ClientLimits(100, 100, Duration.ofMillis(1500), 10, 10));
    Socket headers = connect("127.0.0.1");
    Socket body = connect("127.0.0.1");
    OutputStream headersOut = headers.getOutputStream();
    OutputStream bodyOut = body.getOutputStream();
    headersOut.write("GET /slow HTTP/1.1\r\nHost: a\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
    bodyOut.write("POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    long start = System.nanoTime();
    boolean headersCut = false;
    boolean bodyCut = false;
    // One byte each 200 ms: Jetty's idle timeout (30 s) never fires; 12 s is eight timeouts.
    while ((!headersCut || !bodyCut) && System.nanoTime() - start < 12_000_000_000L) {
      headersCut = headersCut || !trickle(headersOut);
      bodyCut = bodyCut || !trickle(bodyOut);
      Thread.sleep(200); // the trickle's pace, not a synchronisation
    }
    assertThat(headersCut).as("a request's headers trickling in are cut").isTrue();
    assertThat(bodyCut).as("a request's body trickling in is cut").isTrue();
    assertThat(front.limits().slowRequestsCut()).isEqualTo(2);
    assertThat(upstream.seen).isEmpty();
    assertThat(get(connect("127.0.0.1"))).contains("200");
  }

  /** Writes one byte; false when the server closed the connection. */
  private static boolean trickle(OutputStream out) {
    try {
      out.write('a');
      out.flush();
      return true;
    } catch (IOException closed) {
      return false;
    }
  }

  @Test
  void pageSocketsAreBoundedPerConnectionAndInTotal() throws Exception {
    start(new ClientLimits(100, 100, Duration.ofSeconds(30), 3, 2));
    String anna = cookie();
    String bob = cookie();
    URI ws = URI.create("ws://127.0.0.1:" + front.port() + "/_cryo/ws");
    SocketClient one = SocketClient.connect(http, ws, anna, null);
    SocketClient two = SocketClient.connect(http, ws, anna, null);

    assertThat(SocketClient.connect(http, ws, anna, null).closeCode()).isEqualTo(1008);
    SocketClient three = SocketClient.connect(http, ws, bob, null);
    assertThat(SocketClient.connect(http, ws, bob, null).closeCode()).as("over the total")
        .isEqualTo(1013);
    assertThat(front.limits().socketsRefused()).isEqualTo(2);
    assertThat(front.sockets().open()).isEqualTo(3);
    one.send("{\"type\":\"ping\",\"id\":1}");
    assertThat(one.next().path("type").asText()).isEqualTo("pong");
    two.close();
    three.close();
    long deadline = System.nanoTime() + SocketClient.PATIENCE.toNanos();
    while (front.sockets().open() > 1 && System.nanoTime() < deadline) {
      Thread.sleep(10); // poll until
    }
    SocketClient again = SocketClient.connect(http, ws, anna, null);
    again.send("{\"type\":\"ping\",\"id\":2}");
    assertThat(again.next().path("type").asText()).isEqualTo("pong");
  }

  /** A connection the upstream knows: its cookie value. */
  private String cookie() throws Exception {
    String setCookie = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + front.port() + "/")).build(), BodyHandlers.ofString())
        .headers().firstValue("set-cookie").orElseThrow();
    return setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));
  }

}
