package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application's configuration and lifecycle on real processes: {@code cryo serve
 * --app-config FILE --worker-jvm-option OPT} gives each worker's {@code onStart} the file's
 * contents and its JVM the option; {@code cryo reload} reads the file again and takes other JVM
 * options, the old workers running {@code onStop} as they quit; an {@code onStart} that throws
 * fails the start at once, and a reload before any old worker is touched, naming its cause.
 */
@Timeout(600)
class ServeAppConfigTest {

  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path scratch;

  private static JsonNode config(HttpClient http, URI base) throws Exception {
    var response = http.send(HttpRequest.newBuilder(base.resolve("/api/config"))
        .timeout(Duration.ofSeconds(30)).build(), BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static long markers(Path dir, String prefix) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(file -> file.getFileName().toString().startsWith(prefix)).count();
    }
  }

  @Test
  void theWorkersSeeTheConfigurationAndOptionsAndAReloadChangesBoth() throws Exception {
    Path markers = Files.createDirectories(scratch.resolve("markers"));
    Path file = scratch.resolve("app.properties");
    Files.writeString(file, "# the first version\ngreeting=hello\nmarker.dir=" + markers + "\n");
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1", "--app",
        ConfiguredApplication.class.getName(), "--app-config", file.toString(),
        "--worker-jvm-option=-Dcryo.test.flavour=one");
    try (HttpClient http = HttpClient.newHttpClient()) {
      JsonNode first = config(http, run.base());
      assertThat(first.path("greeting").asText()).isEqualTo("hello");
      assertThat(first.path("flavour").asText()).isEqualTo("one");
      assertThat(first.path("starts").asInt()).as("onStart ran once, before the first call")
          .isEqualTo(1);
      String oldWorker = first.path("worker").asText();
      assertThat(markers.resolve("started-" + oldWorker)).hasContent("hello");
      assertThat(markers(markers, "stopped-")).isZero();

      Files.writeString(file, "greeting=bonjour\nmarker.dir=" + markers + "\n");
      ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString(),
          "--worker-jvm-option=-Dcryo.test.flavour=two");
      try {
        assertThat(reload.exitCode()).as(reload.out() + reload.err()).isZero();
        assertThat(reload.out()).startsWith("done: replaced 1 workers");
      } finally {
        reload.close();
      }

      JsonNode second = config(http, run.base());
      assertThat(second.path("greeting").asText()).as("the file read again").isEqualTo("bonjour");
      assertThat(second.path("flavour").asText()).as("the reload's JVM option").isEqualTo("two");
      assertThat(second.path("worker").asText()).isNotEqualTo(oldWorker);
      assertThat(markers.resolve("stopped-" + oldWorker)).as("onStop at the old worker's quit")
          .hasContent("hello");
      assertThat(markers.resolve("started-" + second.path("worker").asText()))
          .hasContent("bonjour");
    } finally {
      run.close();
    }
  }

  @Test
  void anOnStartThatThrowsFailsTheStartAtOnceWithItsCause() throws Exception {
    Path file = scratch.resolve("failing.properties");
    Files.writeString(file, "fail.start=yes\n");
    ServeRun run = ServeRun.start(scratch.resolve("home"), "--workers", "1", "--app",
        ConfiguredApplication.class.getName(), "--app-config", file.toString());
    try {
      assertThat(run.exitCode()).as(run.err()).isNotZero();
      assertThat(run.err()).contains(ConfiguredApplication.FAILURE)
          .contains("no second attempt").doesNotContain("attempts;");
    } finally {
      run.close();
    }
  }

  @Test
  void aReloadWhoseOnStartThrowsStopsBeforeTheOldWorkerAndNamesTheCause() throws Exception {
    Path markers = Files.createDirectories(scratch.resolve("markers"));
    Path file = scratch.resolve("app.properties");
    Files.writeString(file, "greeting=hello\nmarker.dir=" + markers + "\n");
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1", "--app",
        ConfiguredApplication.class.getName(), "--app-config", file.toString());
    try (HttpClient http = HttpClient.newHttpClient()) {
      String worker = config(http, run.base()).path("worker").asText();
      Path failing = scratch.resolve("failing.properties");
      Files.writeString(failing, "fail.start=yes\n");
      ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString(),
          "--app-config", failing.toString());
      try {
        assertThat(reload.exitCode()).as(reload.out() + reload.err()).isNotZero();
        assertThat(reload.out() + reload.err()).contains("start_failed")
            .contains(ConfiguredApplication.FAILURE);
      } finally {
        reload.close();
      }
      JsonNode after = config(http, run.base());
      assertThat(after.path("worker").asText()).as("the old worker serves on").isEqualTo(worker);
      assertThat(after.path("greeting").asText()).isEqualTo("hello");
      assertThat(markers(markers, "stopped-")).isZero();

      ChildCryo bad = ChildCryo.start(scratch, "reload", "--home", run.home().toString(),
          "--app-config", scratch.resolve("missing.properties").toString());
      try {
        assertThat(bad.exitCode()).isEqualTo(64);
        assertThat(bad.err()).contains("bad_app_config").contains("nothing was written");
      } finally {
        bad.close();
      }
    } finally {
      run.close();
    }
  }
}
