package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A roll back after a state-version bump: {@code cryo reload} to a version that cannot read what
 * is stored is refused up front, naming how many users it would strand, awake and frozen, and
 * nothing changes — with real processes and an application jar of each version built here.
 */
@Timeout(600)
class ReloadUnreadableStateTest {

  @TempDir Path scratch;

  static String counter(int stateVersion) {
    return """
        package com.example.versions;
        public final class Counter implements dev.cryo.app.CryoApplication {
          public record Count(long n) {}
          @Override public void routes(dev.cryo.app.Routes routes) {
            routes.post("/count", call -> call.user(Count.class).update(c -> new Count(c.n() + 1)));
          }
          @Override public int stateVersion() { return %d; }
        }
        """.formatted(stateVersion);
  }

  @Test
  void aReloadToAVersionThatCannotReadTheStoredStateIsRefusedAndChangesNothing() throws Exception {
    Path two = AppJars.build(scratch, "counter-2",
        Map.of("com.example.versions.Counter", counter(2)), Map.of());
    Path one = AppJars.build(scratch, "counter-1",
        Map.of("com.example.versions.Counter", counter(1)), Map.of());
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1",
        "--app", "com.example.versions.Counter", "--app-path", two.toString());
    try (HttpClient http = HttpClient.newHttpClient()) {
      DemoClient anna = new DemoClient(http, run.base());
      DemoClient bob = new DemoClient(http, run.base());
      assertThat(anna.post("/count", Map.of()).number("n")).isEqualTo(1);
      assertThat(bob.post("/count", Map.of()).number("n")).isEqualTo(1);
      reload(run, two, 0, "done"); // both frozen by state version 2
      assertThat(anna.post("/count", Map.of()).number("n")).isEqualTo(2); // anna awake again

      ChildCryo refused = ChildCryo.start(scratch, "reload", "--home", run.home().toString(),
          "--app-path", one.toString());
      String line;
      try {
        assertThat(refused.exitCode()).as(refused.out() + refused.err())
            .isEqualTo(ReloadCommand.REFUSED);
        line = refused.out();
      } finally {
        refused.close();
      }
      assertThat(line).startsWith("refused (unreadable_state)")
          .contains("2 users (1 awake, 1 frozen)", "state version 2", "nothing was replaced");

      Answer annaAfter = anna.post("/count", Map.of());
      Answer bobAfter = bob.post("/count", Map.of());
      assertThat(annaAfter.status()).as(annaAfter.text()).isEqualTo(200);
      assertThat(annaAfter.number("n")).isEqualTo(3);
      assertThat(bobAfter.status()).as(bobAfter.text()).isEqualTo(200);
      assertThat(bobAfter.number("n")).as("woken by the version that wrote him").isEqualTo(2);
      reload(run, two, 0, "done"); // the run reloads as before
    } finally {
      run.close();
    }
  }

  private void reload(ServeRun run, Path jar, int exit, String start) throws Exception {
    ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString(),
        "--app-path", jar.toString());
    try {
      assertThat(reload.exitCode()).as(reload.out() + reload.err()).isEqualTo(exit);
      assertThat(reload.out()).startsWith(start);
    } finally {
      reload.close();
    }
  }
}
