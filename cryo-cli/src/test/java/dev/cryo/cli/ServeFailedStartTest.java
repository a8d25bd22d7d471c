package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code cryo serve} that adopts a drained user and then cannot bind its port leaves him to the
 * next {@code cryo serve} (issue 22, finding 2), and says so in one line: drain with a user at
 * counter 5, serve on a port another socket holds (exit 69), serve again: he is back at 5.
 */
class ServeFailedStartTest {

  @TempDir Path scratch;

  @Test
  void aServeThatCannotBindItsPortLeavesTheDrainedUserToTheNextServe() throws Exception {
    Path home = scratch.resolve("home");
    String cookie;
    String page;
    try (HttpClient http = HttpClient.newHttpClient()) {
      ServeRun first = ServeRun.serving(home, "--workers", "1");
      try {
        DemoClient client = new DemoClient(http, first.base());
        page = client.openPage();
        for (int i = 0; i < 5; i++) {
          assertThat(client.post("/api/counter", Map.of("page", page)).status()).isEqualTo(200);
        }
        assertThat(client.get("/api/state?page=" + page).json().path("counter").asInt())
            .isEqualTo(5);
        cookie = client.cookie();
        ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--home",
            home.toString());
        try {
          assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
        } finally {
          stop.close();
        }
        assertThat(first.exitCode()).as(first.err()).isEqualTo(0);
        assertThat(first.err()).contains("drained: 1 user carried");
      } finally {
        first.close();
      }

      try (ServerSocket taken = new ServerSocket()) {
        taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ServeRun failed = ServeRun.startOnPort(home, taken.getLocalPort(), "--workers", "1");
        try {
          assertThat(failed.exitCode()).as(failed.err()).isEqualTo(ExitCodes.UNAVAILABLE);
          assertThat(failed.err()).contains("the start did not complete")
              .contains("the 1 user it adopted is kept for the next start in the reboot data");
        } finally {
          failed.close();
        }
      }

      ServeRun next = ServeRun.serving(home, "--workers", "1");
      try {
        assertThat(next.err()).contains("was adopted: 1 users come back frozen");
        DemoClient client = new DemoClient(http, next.base());
        client.useCookie(cookie);
        DemoClient.Answer state = client.get("/api/state?page=" + page);
        assertThat(state.status()).as(state.text()).isEqualTo(200);
        assertThat(state.json().path("counter").asInt()).isEqualTo(5);
        assertThat(client.cookie()).isEqualTo(cookie);
      } finally {
        next.close();
      }
    }
  }
}
