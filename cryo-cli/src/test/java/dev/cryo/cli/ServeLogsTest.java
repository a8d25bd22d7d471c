package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code cryo serve} keeps its logs within their caps: its event log rotated into parts
 * that every reader reads oldest first, missing nothing.
 */
@Timeout(300)
class ServeLogsTest {

  private static final String TOKEN = "serve-logs-test-token-7";
  private static final int USERS = 12;

  @TempDir Path scratch;

  @Test
  void aTinyEventsMaxSizeRotatesEveryLineAndTheReadersStillSeeEveryEvent() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2", "--admin-port",
        "0", "--admin-token", TOKEN, "--events-max-size", "1", "--events-keep", "100000");
    HttpClient http = HttpClient.newHttpClient();
    try {
      // Every line is rotated into a part of its own as it is written: the workers' births,
      // written before the admin listener began, are in parts only, and its board shows them.
      Matcher admin = AdminServeTest.ADMIN_URL.matcher(run.out());
      assertThat(admin.find()).as(run.out()).isTrue();
      String data;
      try (Stream<String> lines = http.send(HttpRequest.newBuilder(
          URI.create(admin.group(1) + "/_cryo/status/stream"))
          .header("Authorization", "Bearer " + TOKEN).build(), BodyHandlers.ofLines()).body()) {
        data = lines.filter(line -> line.startsWith("data: ")).findFirst().orElseThrow();
      }
      JsonNode status = AdminServeTest.JSON.readTree(data.substring("data: ".length()));
      List<String> labels = new ArrayList<>();
      status.path("events").forEach(event -> labels.add(event.path("label").asText()));
      assertThat(labels).as("the status page's events").contains("worker");

      for (int i = 0; i < USERS; i++) {
        Answer born = new DemoClient(http, run.base()).post("/api/pages", Map.of());
        assertThat(born.status()).as(born.text()).isEqualTo(200);
      }
      List<Path> files = EventAuditor.runFiles(run.home());
      assertThat(files.size()).as("parts and the live file").isGreaterThan(USERS * 3);
      assertThat(Files.size(run.home().resolve("events.jsonl"))).isZero();
      long n = 0;
      int births = 0;
      for (Path file : files) {
        for (String line : Files.readAllLines(file)) {
          JsonNode event = AdminServeTest.JSON.readTree(line);
          assertThat(event.path("n").asLong()).as("line %s of %s", line, file).isEqualTo(++n);
          if ("new_user".equals(event.path("kind").asText())) {
            births++;
          }
        }
      }
      assertThat(births).as("users born in the log").isEqualTo(USERS);
      assertThat(EventAuditor.audit(files, user -> true).violations()).isEmpty();
    } finally {
      http.close();
      run.close();
    }
  }

  @Test
  void reloadsLeaveNoMoreWorkerLogsThanTheKeptCount() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2",
        "--worker-logs-keep", "3");
    try {
      for (int i = 0; i < 3; i++) { // each replaces both workers: two new logs
        ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString());
        try {
          assertThat(reload.exitCode()).as(reload.out() + reload.err()).isZero();
        } finally {
          reload.close();
        }
      }
      List<String> logs;
      try (Stream<Path> files = Files.list(run.home().resolve("workers"))) {
        logs = files.map(file -> file.getFileName().toString()).sorted().toList();
      }
      assertThat(logs).as("the workers' logs after three reloads").hasSize(3);
      assertThat(run.err()).contains("main_0008.log"); // eight spawned in all
      assertThat(logs).contains("main_0007.log", "main_0008.log"); // the running workers'
    } finally {
      run.close();
    }
  }

  @Test
  void aWorkersLogPastItsSizeIsCutAtAHeartbeat() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1",
        "--worker-log-max-size", "10");
    try {
      Path workers = run.home().resolve("workers");
      // the worker writes a line or two as it starts: past 10 bytes, cut at the next beat
      Poll.until("the worker's log is cut", () -> {
        try {
          return Files.exists(workers.resolve("main_0001.log.1"))
              && Files.size(workers.resolve("main_0001.log.1")) > 10;
        } catch (java.io.IOException e) {
          return false;
        }
      });
      assertThat(Files.size(workers.resolve("main_0001.log"))).isLessThanOrEqualTo(10);
    } finally {
      run.close();
    }
  }
}
