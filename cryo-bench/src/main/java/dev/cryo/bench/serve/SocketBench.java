package dev.cryo.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import dev.cryo.wire.protocol.PushMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The page socket through cryo (front, commander, wire, worker JVM): one call of the demo over the
 * socket beside the same call over HTTP (a kept-alive connection), interleaved one by one in the
 * same run; then push latency, twice: from the commander's push (what a worker's {@code push}
 * call reaches) to the browser's socket, and end to end — a click of one tab over HTTP until its
 * push arrives on another tab's socket, beside the click's own HTTP reply.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.SocketBench [CALLS]
 * </pre>
 *
 * Default: 5,000 of each (after 500 of each to warm up). Prints p50 / p99 / max in microseconds.
 */
public final class SocketBench {

  private static final Pattern COOKIE = Pattern.compile("cryo_connection=([^;]+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  private SocketBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int warm = Math.max(50, calls / 10);
    Path home = Files.createTempDirectory("cryo-socket-bench");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).build();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        HttpClient http = HttpClient.newHttpClient()) {
      front.start();
      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      HttpResponse<String> opened = http.send(HttpRequest.newBuilder(base.resolve("/api/pages"))
          .POST(BodyPublishers.ofString("{}")).build(), BodyHandlers.ofString());
      Matcher matcher = COOKIE.matcher(opened.headers().firstValue("set-cookie").orElse(""));
      if (!matcher.find()) {
        throw new IOException("no cookie: " + opened.statusCode() + " " + opened.body());
      }
      String cookie = matcher.group(1);
      String page = JSON.readTree(opened.body()).path("page").asText();
      String other = JSON.readTree(send(http, base, cookie, "POST", "/api/pages", "{}"))
          .path("page").asText();
      Tab tab = Tab.open(http, base, cookie, page);
      Tab otherTab = Tab.open(http, base, cookie, other);

      Histogram overSocket = new Histogram(60_000_000L, 3);
      Histogram overHttp = new Histogram(60_000_000L, 3);
      String state = "/api/state?page=" + page;
      for (int i = 0; i < warm + calls; i++) {
        long start = System.nanoTime();
        JsonNode reply = tab.call("GET", "/api/state", "page=" + page, null);
        long socketMicros = (System.nanoTime() - start) / 1000;
        if (reply.path("status").asInt() != 200) {
          throw new IOException("a socket call answered " + reply);
        }
        start = System.nanoTime();
        send(http, base, cookie, "GET", state, null);
        long httpMicros = (System.nanoTime() - start) / 1000;
        if (i >= warm) {
          overSocket.recordValue(Math.max(1, socketMicros));
          overHttp.recordValue(Math.max(1, httpMicros));
        }
      }
      print("GET /api/state over the socket", overSocket);
      print("GET /api/state over HTTP      ", overHttp);

      Histogram relayed = new Histogram(60_000_000L, 3);
      byte[] data = "{\"kind\":\"bench\"}".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < warm + calls; i++) {
        tab.messages.clear();
        long start = System.nanoTime();
        if (commander.push(new PushMessage(PushMessage.PAGE, page, data)).written() != 1) {
          throw new IOException("a push was not written");
        }
        tab.nextPush();
        if (i >= warm) {
          relayed.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
        }
      }
      print("push, commander -> socket     ", relayed);

      Histogram pushed = new Histogram(60_000_000L, 3);
      Histogram replied = new Histogram(60_000_000L, 3);
      String click = "{\"page\":\"" + page + "\"}";
      for (int i = 0; i < warm + calls; i++) {
        otherTab.messages.clear();
        long start = System.nanoTime();
        send(http, base, cookie, "POST", "/api/counter", click);
        long reply = (System.nanoTime() - start) / 1000;
        otherTab.nextPush();
        long push = (System.nanoTime() - start) / 1000;
        if (i >= warm) {
          replied.recordValue(Math.max(1, reply));
          pushed.recordValue(Math.max(1, push));
        }
      }
      print("click over HTTP -> its reply  ", replied);
      print("click over HTTP -> push in tab", pushed);
      tab.socket.abort();
      otherTab.socket.abort();
    } finally {
      Scratch.delete(home);
    }
  }

  private static void print(String what, Histogram histogram) {
    System.out.println(String.format("%s  n=%d  p50 %,d us  p99 %,d us  max %,d us", what,
        histogram.getTotalCount(), histogram.getValueAtPercentile(50),
        histogram.getValueAtPercentile(99), histogram.getMaxValue()));
  }

  private static String send(HttpClient http, URI base, String cookie, String method,
      String path, String body) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .header("cookie", "cryo_connection=" + cookie);
    if (body != null) {
      request.header("content-type", "application/json");
    }
    HttpResponse<String> response = http.send(request.method(method, body == null
        ? BodyPublishers.noBody() : BodyPublishers.ofString(body)).build(),
        BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(method + " " + path + " answered " + response.statusCode() + ": "
          + response.body());
    }
    return response.body();
  }

  /** One tab's socket with its channel open. */
  private static final class Tab implements WebSocket.Listener {
    final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    final StringBuilder partial = new StringBuilder();
    WebSocket socket;
    int nextId = 1;

    static Tab open(HttpClient http, URI base, String cookie, String page) throws Exception {
      Tab tab = new Tab();
      tab.socket = http.newWebSocketBuilder().header("Cookie", "cryo_connection=" + cookie)
          .buildAsync(URI.create("ws://127.0.0.1:" + base.getPort() + "/_cryo/ws"), tab).join();
      tab.socket.sendText("{\"id\":0,\"type\":\"open\",\"page\":\"" + page + "\"}", true).join();
      JsonNode reply = tab.next();
      if (reply.path("status").asInt() != 200) {
        throw new IOException("the channel did not open: " + reply);
      }
      return tab;
    }

    JsonNode call(String method, String path, String query, String body) throws Exception {
      int id = nextId++;
      socket.sendText("{\"id\":" + id + ",\"type\":\"call\",\"method\":\"" + method
          + "\",\"path\":\"" + path + "\",\"query\":\"" + query + "\""
          + (body == null ? "" : ",\"body\":" + body) + "}", true).join();
      while (true) {
        JsonNode message = next();
        if (message.path("id").asInt(-1) == id) {
          return message;
        }
      }
    }

    JsonNode nextPush() throws Exception {
      while (true) {
        JsonNode message = next();
        if ("push".equals(message.path("type").asText())) {
          return message;
        }
      }
    }

    JsonNode next() throws Exception {
      JsonNode message = messages.poll(30, TimeUnit.SECONDS);
      if (message == null) {
        throw new IOException("no message within 30 s");
      }
      return message;
    }

    @Override
    public CompletableFuture<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          messages.add(JSON.readTree(partial.toString()));
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        partial.setLength(0);
      }
      webSocket.request(1);
      return null;
    }
  }
}
