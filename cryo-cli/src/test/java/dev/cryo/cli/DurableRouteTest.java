package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable route's acknowledged writes survive {@code kill -9} of everything: {@code cryo serve
 * --checkpoint off} (no periodic checkpoint at all), users who each add notes (the demo's
 * {@code POST /api/notes} is durable) and then click the counter (not durable); the worker and the
 * commander are killed at once, so nobody is frozen by anyone. The next {@code cryo serve} on the
 * home brings every user back, by name, from the checkpoint his last note forced: every
 * acknowledged note is there, on the same cookie and page, and the click after it is not (no
 * checkpoint held it), which shows that the durable route, not something else, kept them.
 */
class DurableRouteTest {

  static final int USERS = 4;
  static final int NOTES = 3;

  @TempDir Path scratch;

  private static boolean journalHolds(Path journal, String user) {
    try {
      return new String(Files.readAllBytes(journal), StandardCharsets.ISO_8859_1).contains(user);
    } catch (java.io.IOException notYet) {
      return false;
    }
  }

  @Test
  void aDurableRoutesAcknowledgedWritesSurviveAKillOfTheWorkerAndTheCommander()
      throws Exception {
    Path home = scratch.resolve("home");
    List<DemoClient> tabs = new ArrayList<>();
    List<String> pages = new ArrayList<>();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      ServeRun run = ServeRun.serving(home, "--workers", "1", "--checkpoint", "off");
      try {
        for (int i = 0; i < USERS; i++) {
          DemoClient tab = new DemoClient(http, run.base());
          pages.add(tab.openPage());
          Answer login = tab.post("/api/login", Map.of("user", "durable-" + i));
          assertThat(login.status()).as(login.text()).isEqualTo(200);
          tabs.add(tab);
        }
        // The journal knows every identity before the notes (a user born in its last batch,
        // 50 ms at most, whose worker dies with the commander is lost: docs/reliability.md).
        Path journal = home.resolve("journal");
        Poll.until("the journal holds the logins", () -> journalHolds(journal,
            "durable-" + (USERS - 1)));
        for (int i = 0; i < USERS; i++) {
          Answer click = tabs.get(i).post("/api/counter", Map.of("page", pages.get(i)));
          assertThat(click.number("counter")).isEqualTo(1);
          for (int n = 1; n <= NOTES; n++) {
            Answer note = tabs.get(i).post("/api/notes", Map.of("page", pages.get(i),
                "text", "note " + n + " of " + i));
            assertThat(note.status()).as(note.text()).isEqualTo(200);
          }
          Answer after = tabs.get(i).post("/api/counter", Map.of("page", pages.get(i)));
          assertThat(after.number("counter")).as("a click no checkpoint holds").isEqualTo(2);
        }
        List<ProcessHandle> workers = run.workerProcesses();
        assertThat(workers).hasSize(1);
        for (ProcessHandle worker : workers) {
          ChildCryo.kill("KILL", worker.pid());
        }
        ChildCryo.kill("KILL", run.process().pid());
        run.process().waitFor();
        for (ProcessHandle worker : workers) {
          Poll.until("worker " + worker.pid() + " is dead", () -> !worker.isAlive());
        }
      } finally {
        run.close();
      }
    }

    ServeRun next = ServeRun.serving(home, "--workers", "1", "--checkpoint", "off");
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
      assertThat(next.err()).as("the start names them back from a checkpoint")
          .contains("come back from a checkpoint").contains("durable-0");
      for (int i = 0; i < USERS; i++) {
        DemoClient tab = new DemoClient(http, next.base());
        tab.useCookie(tabs.get(i).cookie());
        Answer state = tab.get("/api/state?page=" + pages.get(i));
        assertThat(state.status()).as(state.text()).isEqualTo(200);
        assertThat(state.field("user")).isEqualTo("durable-" + i);
        List<String> notes = new ArrayList<>();
        state.json().path("notes").forEach(note -> notes.add(note.asText()));
        List<String> acked = new ArrayList<>();
        for (int n = 1; n <= NOTES; n++) {
          acked.add("note " + n + " of " + i);
        }
        assertThat(notes).as("every acknowledged note of durable-%d", i).isEqualTo(acked);
        assertThat(state.number("counter")).as("the click after the last note was held by"
            + " nothing durable").isEqualTo(1);
      }
    } finally {
      next.close();
    }
  }
}
