package dev.cryo.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A virtual user's page socket {@code /_cryo/ws} (docs/socket.md): pages' channels opened on it,
 * calls sent on it and matched to their replies by id, and the application's pushes handed to the
 * recorder. A socket that closes fails every call waiting on it (their outcome is unknown). Thread-safe:
 * sends are serialized, as the JDK's WebSocket requires.
 */
final class PageSocket implements WebSocket.Listener {

  private final Recorder recorder;
  private final String vuser;
  private final Map<Long, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final StringBuilder partial = new StringBuilder();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  /** The pages whose channel the front opened on this socket (answered 200). */
  private final java.util.Set<String> bound = ConcurrentHashMap.newKeySet();
  private volatile WebSocket socket;

  private PageSocket(Recorder recorder, String vuser) {
    this.recorder = recorder;
    this.vuser = vuser;
  }

  /** Opens the socket of the connection {@code cookie} at {@code base}, or throws. */
  static PageSocket open(HttpClient http, URI base, String cookie, Recorder recorder,
      String vuser, Duration timeout) throws IOException, InterruptedException {
    PageSocket listener = new PageSocket(recorder, vuser);
    URI uri = URI.create((base.getScheme().equals("https") ? "wss://" : "ws://")
        + base.getAuthority() + "/_cryo/ws");
    try {
      listener.socket = http.newWebSocketBuilder()
          .header("Cookie", DemoClient.COOKIE + "=" + cookie)
          .connectTimeout(timeout)
          .buildAsync(uri, listener)
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException("the page socket did not open: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("the page socket did not open within " + timeout, e);
    }
    return listener;
  }

  /** Whether the socket is still open. */
  boolean isOpen() {
    return !closed.isDone();
  }

  /** Binds {@code page}'s channel on this socket; true when the front answered 200. */
  boolean bind(String page, Duration timeout) throws IOException, InterruptedException {
    ObjectNode message = History.JSON.createObjectNode().put("type", "open").put("page", page);
    boolean opened = request(message, timeout).path("status").asInt() == 200;
    if (opened) {
      bound.add(page);
    }
    return opened;
  }

  /**
   * Whether {@code page}'s channel is open on this socket, binding it first when it is not (a page
   * opened over HTTP while another thread was opening this socket); a browser opens a page's
   * channel before it calls on it.
   */
  boolean ensureBound(String page, Duration timeout) throws IOException, InterruptedException {
    return bound.contains(page) || bind(page, timeout);
  }

  /** A call of {@code page} over the socket, answered as an HTTP request would be. */
  Reply call(String page, String method, String path, String query, JsonNode body,
      Duration timeout) throws IOException, InterruptedException {
    ObjectNode message = History.JSON.createObjectNode().put("type", "call").put("page", page)
        .put("method", method).put("path", path);
    if (query != null) {
      message.put("query", query);
    }
    if (body != null) {
      message.set("body", body);
    }
    JsonNode reply = request(message, timeout);
    JsonNode headers = reply.path("headers");
    JsonNode answer = reply.get("body");
    return DemoClient.parse(reply.path("status").asInt(),
        answer != null && answer.isObject() ? answer : null,
        Optional.ofNullable(headers.path("cryo-reason").textValue()) // the front: lower case
            .or(() -> Optional.ofNullable(headers.path("Cryo-Reason").textValue())),
        headers.path(DemoClient.PLACEMENT_HEADER).textValue(), null,
        answer != null && answer.isTextual() ? answer.asText() : null);
  }

  private JsonNode request(ObjectNode message, Duration timeout)
      throws IOException, InterruptedException {
    if (!isOpen()) {
      throw new Recorder.NotSent("the page socket is closed");
    }
    long id = ids.incrementAndGet();
    message.put("id", id);
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    waiting.put(id, reply);
    try {
      synchronized (this) {
        socket.sendText(message.toString(), true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io
          : new IOException("the page socket failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new java.net.http.HttpTimeoutException("no reply on the page socket within "
          + timeout);
    } finally {
      waiting.remove(id);
    }
  }

  @Override
  public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
    partial.append(data);
    if (last) {
      String text = partial.toString();
      partial.setLength(0);
      handle(text);
    }
    webSocket.request(1);
    return null;
  }

  private void handle(String text) {
    JsonNode message;
    try {
      message = History.JSON.readTree(text);
    } catch (IOException e) {
      return;
    }
    String type = message.path("type").asText();
    if (type.equals("push")) {
      JsonNode data = message.path("data");
      recorder.push(vuser, message.path("page").asText(null), data.path("user").asText(null),
          data.path("counter").isIntegralNumber() ? data.get("counter").asLong() : null,
          data.path("pageCounter").isIntegralNumber() ? data.get("pageCounter").asLong() : null);
    } else if (message.has("id")) {
      CompletableFuture<JsonNode> reply = waiting.get(message.path("id").asLong());
      if (reply != null) {
        reply.complete(message);
      }
    }
  }

  @Override
  public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    fail(new IOException("the page socket was closed: " + statusCode + " " + reason));
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    fail(new IOException("the page socket failed: " + error, error));
  }

  private void fail(IOException cause) {
    closed.complete(null);
    waiting.values().forEach(reply -> reply.completeExceptionally(cause));
  }

  /** Closes the socket (abruptly: the harness does not wait for the front's close). */
  void close() {
    closed.complete(null);
    WebSocket current = socket;
    if (current != null) {
      current.abort();
    }
  }
}
