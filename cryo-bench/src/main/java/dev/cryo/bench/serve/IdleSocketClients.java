package dev.cryo.bench.serve;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The browsers of {@link IdleSocketsBench}, in a process of their own so that their sockets' memory
 * and descriptors are not the server's: it holds many idle page sockets and, when told, pings over
 * each. Driven by lines on standard input, answered by one line each on standard output:
 * <ul>
 *   <li>{@code socket URI COOKIE PAGE} — one socket to open later ({@code -} for no cookie, no
 *       page); no answer;
 *   <li>{@code open} — opens every socket given since the last {@code open}, at most 64
 *       handshakes at a time, each sending {@code {"type":"open","page":PAGE}} and waiting for its
 *       answer: {@code opened K failed F};
 *   <li>{@code ping} — sends {@code {"type":"ping"}} on every socket and waits (at most 120 s)
 *       for every pong: {@code pongs K of N in MS ms};
 *   <li>{@code count} — {@code open K closed C}: sockets still open, sockets the server closed;
 *   <li>{@code close} — aborts every socket: {@code closed N}.
 * </ul>
 * End of input ends the process. One thread reads the commands; the sockets' listeners run on the
 * HTTP client's threads.
 */
public final class IdleSocketClients {

  private static final Duration PATIENCE = Duration.ofSeconds(120);

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Client> sockets = new ArrayList<>();
  private final List<String[]> pending = new ArrayList<>();
  private final AtomicInteger closedByServer = new AtomicInteger();

  private IdleSocketClients() {}

  /** Runs the client until its input ends; see the class documentation. */
  public static void main(String[] args) throws Exception {
    new IdleSocketClients().run(new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8)), new PrintStream(System.out, true, StandardCharsets.UTF_8));
    System.exit(0); // the HTTP client's threads would keep the process alive
  }

  private void run(BufferedReader in, PrintStream out) throws Exception {
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split(" ");
      switch (words[0]) {
        case "socket" -> pending.add(new String[] {words[1], words[2], words[3]});
        case "open" -> out.println(open());
        case "ping" -> out.println(ping());
        case "count" -> out.println("open " + sockets.stream().filter(c -> c.closed.getCount() > 0)
            .count() + " closed " + closedByServer.get());
        case "close" -> {
          sockets.forEach(client -> client.socket.get().abort());
          out.println("closed " + sockets.size());
          sockets.clear();
        }
        default -> out.println("error unknown command " + words[0]);
      }
    }
  }

  private String open() throws InterruptedException {
    Semaphore handshakes = new Semaphore(64);
    List<Client> opening = new ArrayList<>();
    for (String[] target : pending) {
      handshakes.acquire();
      Client client = new Client();
      opening.add(client);
      WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(PATIENCE);
      if (!target[1].equals("-")) {
        builder.header("Cookie", "cryo_connection=" + target[1]);
      }
      client.expect("\"status\":200", () -> { });
      builder.buildAsync(URI.create(target[0]), client).whenComplete((socket, error) -> {
        handshakes.release();
        if (error != null) {
          client.answered.countDown();
          return;
        }
        client.socket.set(socket);
        socket.sendText(target[2].equals("-") ? "{\"type\":\"open\"}"
            : "{\"type\":\"open\",\"id\":0,\"page\":\"" + target[2] + "\"}", true);
      });
    }
    pending.clear();
    int opened = 0;
    for (Client client : opening) {
      if (client.answered.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS) && client.ok) {
        sockets.add(client);
        opened++;
      }
    }
    return "opened " + opened + " failed " + (opening.size() - opened);
  }

  private String ping() throws InterruptedException {
    long start = System.nanoTime();
    CountDownLatch pongs = new CountDownLatch(sockets.size());
    for (Client client : sockets) {
      client.expect("\"pong\"", pongs::countDown);
      client.socket.get().sendText("{\"type\":\"ping\"}", true);
    }
    pongs.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    return "pongs " + (sockets.size() - pongs.getCount()) + " of " + sockets.size() + " in "
        + (System.nanoTime() - start) / 1_000_000 + " ms";
  }

  /** One idle socket: it waits for one expected message at a time. */
  private final class Client implements WebSocket.Listener {
    final AtomicReference<WebSocket> socket = new AtomicReference<>();
    final CountDownLatch answered = new CountDownLatch(1);
    final CountDownLatch closed = new CountDownLatch(1);
    final StringBuilder partial = new StringBuilder();
    volatile String expected;
    volatile Runnable onExpected;
    volatile boolean ok;

    void expect(String fragment, Runnable then) {
      onExpected = then;
      expected = fragment;
    }

    @Override
    public CompletableFuture<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String message = partial.toString();
        partial.setLength(0);
        String fragment = expected;
        if (fragment != null && message.contains(fragment)) {
          expected = null;
          ok = true;
          answered.countDown();
          onExpected.run();
        }
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletableFuture<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      closedByServer.incrementAndGet();
      closed.countDown();
      answered.countDown();
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      closed.countDown();
      answered.countDown();
    }
  }

  /**
   * The other end: starts the client process (this JVM's java and class path) and drives it, one
   * command at a time. Not thread-safe.
   */
  static final class Remote implements AutoCloseable {
    private final Process process;
    private final Path errors;
    private final PrintStream commands;
    private final BufferedReader answers;

    private Remote(Process process, Path errors) {
      this.process = process;
      this.errors = errors;
      this.commands = new PrintStream(process.getOutputStream(), false, StandardCharsets.UTF_8);
      this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8));
    }

    /** Starts the client process. */
    static Remote start() throws IOException {
      Path errors = Files.createTempFile("idle-socket-clients", ".err");
      Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
          "java").toString(), "-Xmx1g", "-cp", System.getProperty("java.class.path"),
          IdleSocketClients.class.getName()).redirectError(errors.toFile()).start();
      return new Remote(process, errors);
    }

    /**
     * Opens one socket per target ({@code URI COOKIE PAGE}, {@code -} for none), each with its
     * channel open.
     *
     * @throws IOException when one did not open
     */
    void open(List<String> targets) throws IOException {
      for (String target : targets) {
        commands.println("socket " + target);
      }
      String answer = ask("open");
      if (!answer.equals("opened " + targets.size() + " failed 0")) {
        throw new IOException("the client's sockets did not all open: " + answer);
      }
    }

    /** Pings over every socket; the pongs answered, once {@code expected} sockets are held. */
    long pingAll(int expected) throws IOException {
      String[] words = ask("ping").split(" "); // pongs K of N in MS ms
      if (Integer.parseInt(words[3]) != expected) {
        throw new IOException("the client holds " + words[3] + " sockets, not " + expected);
      }
      return Long.parseLong(words[1]);
    }

    /** The sockets the server closed, all along. */
    int closedByServer() throws IOException {
      return Integer.parseInt(ask("count").split(" ")[3]); // open K closed C
    }

    /** Aborts every socket. */
    void closeAll() throws IOException {
      ask("close");
    }

    private String ask(String command) throws IOException {
      commands.println(command);
      commands.flush();
      String answer = answers.readLine();
      if (answer == null || answer.startsWith("error")) {
        throw new IOException("the client process failed at '" + command + "': " + answer + " "
            + Files.readString(errors));
      }
      return answer;
    }

    @Override
    public void close() throws IOException {
      commands.close();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
      Files.deleteIfExists(errors);
    }
  }
}
