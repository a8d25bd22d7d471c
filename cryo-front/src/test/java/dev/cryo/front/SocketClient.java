package dev.cryo.front;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * For tests (shared through cryo-front's test jar): a page socket client over the JDK's
 * WebSocket, keeping every message and the close code, and a raw client's pieces (a hand-made
 * handshake, masked frames) for a reader that never reads. Waits are bounded by
 * {@link #PATIENCE}. One test thread drives it.
 */
public final class SocketClient implements WebSocket.Listener {

  /** Generous: the machine may be busy; a passing run never waits this long. */
  public static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
  private final CompletableFuture<Integer> closed = new CompletableFuture<>();
  private final StringBuilder partial = new StringBuilder();
  private WebSocket socket;

  private SocketClient() {}

  /**
   * Opens a socket to {@code uri} (ws://…/_cryo/ws) with the cookie value and Origin given (each
   * may be null: not sent). A refused handshake fails the join with a
   * {@link java.net.http.WebSocketHandshakeException} as its cause.
   */
  public static SocketClient connect(HttpClient http, URI uri, String cookie, String origin) {
    SocketClient client = new SocketClient();
    WebSocket.Builder builder = http.newWebSocketBuilder();
    if (cookie != null) {
      builder.header("Cookie", "cryo_connection=" + cookie);
    }
    if (origin != null) {
      builder.header("Origin", origin);
    }
    client.socket = builder.buildAsync(uri, client).join();
    return client;
  }

  @Override
  public CompletableFuture<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
    partial.append(data);
    if (last) {
      try {
        messages.add(JSON.readTree(partial.toString()));
      } catch (IOException e) {
        throw new AssertionError("the front sent a message that is not JSON: " + partial, e);
      }
      partial.setLength(0);
    }
    webSocket.request(1);
    return null;
  }

  @Override
  public CompletableFuture<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    closeReason = reason;
    closed.complete(statusCode);
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    closed.complete(-1);
  }

  /** Sends one text message, waiting until it is written. */
  /** Closes the socket normally, waiting until the close frame is sent. */
  public void close() {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
  }

  public void send(String text) {
    socket.sendText(text, true).join();
  }

  /** The next message, waiting (bounded). */
  public JsonNode next() throws InterruptedException {
    JsonNode message = messages.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    if (message == null) {
      throw new AssertionError("no message within " + PATIENCE);
    }
    return message;
  }

  /** The next message carrying {@code id}; pushes and other replies before it are skipped. */
  public JsonNode nextWithId(int id) throws InterruptedException {
    while (true) {
      JsonNode message = next();
      if (message.path("id").asInt(-1) == id) {
        return message;
      }
    }
  }

  /** The next reply (a message of type {@code reply}); pushes before it are skipped. */
  public JsonNode nextReply() throws InterruptedException {
    while (true) {
      JsonNode message = next();
      if (message.path("type").asText().equals("reply")) {
        return message;
      }
    }
  }

  private volatile String closeReason;

  /** Whether the front has closed the socket (or it failed) by now. */
  public boolean isClosed() {
    return closed.isDone();
  }

  /** The close reason the front sent, once {@link #closeCode()} returned; null before. */
  public String closeReason() {
    return closeReason;
  }

  /** The close code the front sent (-1 for an error), waiting (bounded). */
  public int closeCode() throws Exception {
    return closed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The raw handshake of a client sending {@code cookie} to {@code host:port}. */
  public static byte[] rawHandshake(String host, int port, String cookie) {
    return ("GET /_cryo/ws HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\nCookie: cryo_connection=" + cookie + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** Reads an HTTP response's head (through the blank line). */
  public static String readHead(InputStream in) throws IOException {
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

  /** Writes one masked text frame, as a client must send it (payloads under 64 KiB). */
  public static void frame(OutputStream out, String text) throws IOException {
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
