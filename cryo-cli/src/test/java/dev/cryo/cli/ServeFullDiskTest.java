package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunDirectory;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo serve} on a full disk, as a process whose run directory is a small tmpfs filled to
 * the last byte: the users stay awake and served, and a drain that cannot write them is refused
 * and loses nobody. A move is refused with its reason and the user is served on where he was; a
 * SIGTERM's drain is refused (the serve prints who stays and why and keeps serving, and takes the
 * next ask as a drain again); {@code cryo stop} cannot write its request (exit 74, nothing
 * written) and changes nothing. Once space returns, {@code cryo stop
 * --wait} drains (exit 0), the serve exits 0 and the next one gives every user back his counter.
 */
class ServeFullDiskTest {

  private static final int USERS = 3;

  @TempDir Path scratch;

  @Test
  void aFullDiskKeepsEveryoneServedRefusesTheDrainAndTheDrainSucceedsOnceSpaceReturns()
      throws Exception {
    Path home = scratch.resolve("home");
    Files.createDirectories(home);
    try (TmpfsHome disk = TmpfsHome.mount(home, 32);
        HttpClient http = HttpClient.newHttpClient()) {
      List<DemoClient> clients = new ArrayList<>();
      List<String> pages = new ArrayList<>();
      List<String> users = new ArrayList<>();
      ServeRun run = ServeRun.serving(home, "--workers", "2");
      try {
        for (int i = 0; i < USERS; i++) {
          DemoClient client = new DemoClient(http, run.base());
          String page = client.openPage();
          assertThat(client.post("/api/counter", Map.of("page", page)).number("counter"))
              .isEqualTo(1);
          clients.add(client);
          pages.add(page);
          users.add(client.get("/api/state?page=" + page).field("user"));
        }
        disk.fill();

        DemoClient.Answer move = clients.get(0).post("/api/move", Map.of());
        assertThat(move.status()).as(move.text()).isEqualTo(409);
        assertThat(move.text()).contains("nothing was lost");
        clicks(clients, pages, 2); // served on, where he was

        ChildCryo.kill("TERM", run.process().pid());
        Poll.until("the SIGTERM's drain is refused", () -> run.err().contains(
            "the drain was refused"));
        assertThat(run.err()).contains(users.get(0)).contains(users.get(2))
            .contains("could not be written").contains("free space");
        assertThat(run.process().isAlive()).isTrue();
        clicks(clients, pages, 3);

        ChildCryo full = ChildCryo.start(scratch, "stop", "--mode", "drain", "--wait", "--home",
            home.toString()); // a full disk takes no stop request either: nothing is written
        try {
          assertThat(full.exitCode()).as(full.err()).isEqualTo(ExitCodes.IO);
          assertThat(full.err()).contains("No space left on device");
        } finally {
          full.close();
        }
        assertThat(run.process().isAlive()).isTrue();
        clicks(clients, pages, 4);
        assertThat(RunDirectory.at(home).loadRunState().orElseThrow().hasEnded()).isFalse();

        disk.empty();
        assertThat(stop(home)).isEqualTo(ExitCodes.OK);
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
        assertThat(run.err()).containsPattern("drained: " + USERS + " users carried");
      } finally {
        run.close();
      }
      ServeRun next = ServeRun.serving(home, "--workers", "2");
      try {
        for (int i = 0; i < USERS; i++) {
          DemoClient client = new DemoClient(http, next.base());
          client.useCookie(clients.get(i).cookie());
          assertThat(client.get("/api/state?page=" + pages.get(i)).number("counter"))
              .as("user %s", users.get(i)).isEqualTo(4);
        }
      } finally {
        next.close();
      }
    }
  }

  /** Each user clicks once more, and his counter reads {@code expected}. */
  private static void clicks(List<DemoClient> clients, List<String> pages, long expected)
      throws Exception {
    for (int i = 0; i < clients.size(); i++) {
      DemoClient.Answer click = clients.get(i).post("/api/counter", Map.of("page", pages.get(i)));
      assertThat(click.status()).as(click.text()).isEqualTo(200);
      assertThat(click.number("counter")).isEqualTo(expected);
    }
  }

  /** {@code cryo stop --mode drain --wait}: its exit code; its line must say what happened. */
  private int stop(Path home) throws Exception {
    ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--wait", "--home",
        home.toString());
    try {
      int code = stop.exitCode();
      assertThat(stop.out()).as(stop.err()).contains("stopped: the run");
      return code;
    } finally {
      stop.close();
    }
  }
}
