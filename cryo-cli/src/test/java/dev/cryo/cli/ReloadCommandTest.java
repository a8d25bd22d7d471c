package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo reload} from another process reaching a running {@code cryo serve}: the request file
 * read by the commander's tick, the workers replaced, the port and every user's state kept.
 */
@Timeout(600)
class ReloadCommandTest {

  @TempDir Path scratch;

  @Test
  void aReloadFromAnotherProcessReplacesEveryWorkerAndKeepsThePortAndTheState() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2");
    try (HttpClient http = HttpClient.newHttpClient()) {
      DemoClient tab = new DemoClient(http, run.base());
      String page = tab.openPage();
      tab.post("/api/notes", Map.of("page", page, "text", "kept across the reload"));
      Answer before = tab.post("/api/counter", Map.of("page", page));

      ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString());
      try {
        assertThat(reload.exitCode()).as(reload.out() + reload.err()).isZero();
        assertThat(reload.out()).startsWith("done: replaced 2 workers").contains("0 lost");
      } finally {
        reload.close();
      }

      Answer after = tab.get("/api/state?page=" + page); // the same port, the same cookie
      assertThat(after.status()).as(after.text()).isEqualTo(200);
      assertThat(after.number("counter")).isEqualTo(before.number("counter"));
      assertThat(after.json().path("notes").toString()).contains("kept across the reload");
      assertThat(after.field("worker")).isNotEqualTo(before.field("worker"));
      assertThat(run.home().resolve("reload.json")).doesNotExist(); // read once, removed
    } finally {
      run.close();
    }
  }

  @Test
  void aReloadIntoAnotherUsersRunDirectoryIsRefusedAndWritesNothing() throws Exception {
    assumeTrue(ServeHomeTest.isRoot(),
        "needs root, to give the run directory to uid " + ServeHomeTest.NOBODY);
    Path theirs = Files.createDirectories(scratch.resolve("theirs"));
    RunDirectory.at(theirs).writeRunState(RunState.begin());
    Files.setAttribute(theirs, "unix:uid", ServeHomeTest.NOBODY);
    ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", theirs.toString());
    try {
      assertThat(reload.exitCode()).as(reload.err()).isEqualTo(65);
      assertThat(reload.err()).contains("not_owned").contains("nothing was written");
      assertThat(theirs.resolve("reload.json")).doesNotExist();
    } finally {
      reload.close();
    }
  }

  @Test
  void aReloadWhereNoServerRunsIsRefusedAndWritesNothing() throws Exception {
    Path empty = Files.createDirectories(scratch.resolve("empty"));
    ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", empty.toString());
    try {
      assertThat(reload.exitCode()).isEqualTo(66);
      assertThat(reload.err()).contains("no_run");
      assertThat(empty.resolve("reload.json")).doesNotExist();
    } finally {
      reload.close();
    }
  }
}
