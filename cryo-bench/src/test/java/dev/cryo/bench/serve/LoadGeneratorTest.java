package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.demo.DemoApplication;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The HTTP benchmark's parts run briefly, so that they cannot rot: the load on the anchor. */
class LoadGeneratorTest {

  @Test
  void theLoadGeneratorDrivesTheSingleProcessAnchorWithoutErrors() throws Exception {
    try (PlainMemoryServer server = new PlainMemoryServer(new DemoApplication(), 0)) {
      server.start();
      LoadGenerator.Result result = LoadGenerator.run(
          URI.create("http://127.0.0.1:" + server.port() + "/"), 5, Duration.ofSeconds(2),
          Duration.ofSeconds(2));

      assertThat(result.errors()).isZero();
      assertThat(result.requests()).isPositive();
      assertThat(result.latency().getTotalCount()).isEqualTo(result.requests());
      assertThat(server.users()).hasSize(5); // one guest per virtual user, each with his cookie
    }
  }

  @Test
  void aUserWhosePageRequestIsResetOpensItAgain() throws Exception {
    try (PlainMemoryServer server = new PlainMemoryServer(new DemoApplication(), 0);
        ResettingProxy proxy = new ResettingProxy(2)) {
      server.start();
      proxy.start(server.port());
      LoadGenerator.Result result = LoadGenerator.run(
          URI.create("http://127.0.0.1:" + proxy.port() + "/"), 3, Duration.ofSeconds(1),
          Duration.ofSeconds(1));

      assertThat(proxy.resets.get()).isEqualTo(2);
      assertThat(result.errors()).isZero();
      assertThat(result.requests()).isPositive();
      assertThat(server.users()).hasSize(3); // the reset requests never reached the server
    }
  }

  /**
   * A TCP proxy that resets its first connections once their request came in (as a server whose
   * connection goes away under the client), and pipes the others to the server.
   */
  private static final class ResettingProxy implements AutoCloseable {
    private final ServerSocket listening;
    private final int toReset;
    final AtomicInteger resets = new AtomicInteger();

    ResettingProxy(int toReset) throws IOException {
      this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      this.toReset = toReset;
    }

    int port() {
      return listening.getLocalPort();
    }

    void start(int serverPort) {
      Thread.ofVirtual().start(() -> {
        try {
          while (true) {
            Socket client = listening.accept();
            if (resets.get() < toReset) {
              client.getInputStream().read(new byte[4096]); // the request is in
              client.setSoLinger(true, 0);
              client.close(); // a reset, not an end of stream
              resets.incrementAndGet();
              continue;
            }
            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), serverPort);
            Thread.ofVirtual().start(() -> pipe(client, upstream));
            Thread.ofVirtual().start(() -> pipe(upstream, client));
          }
        } catch (IOException closed) {
          // the proxy was closed
        }
      });
    }

    private static void pipe(Socket from, Socket to) {
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException e) {
        // one side went away
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }

    @Override
    public void close() throws IOException {
      listening.close();
    }
  }
}
