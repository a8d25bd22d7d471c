package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: a flood of cookie-less requests against {@code --max-users-per-worker 50
 * --max-workers 1}. Each request is a new connection, so a new guest; before, the reception
 * admitted every one of them past the cap. Now at most 50 guests live on the worker, the rest are
 * answered 503 "saturated" with {@code Retry-After}, and the worker lives on.
 */
@Timeout(300)
class ServeCapTest {

  @TempDir
  Path scratch;

  @Test
  void aBurstOfNewConnectionsNeverFillsAWorkerPastTheCap() throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1",
        "--max-workers", "1", "--max-users-per-worker", "50");
        HttpClient http = HttpClient.newHttpClient()) {
      long workerPid = run.workerProcesses().getFirst().pid();
      List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
      for (int i = 0; i < 80; i++) {
        burst.add(http.sendAsync(HttpRequest.newBuilder(run.base().resolve("api/state?n=" + i))
            .GET().build(), HttpResponse.BodyHandlers.ofString()));
      }
      AtomicInteger served = new AtomicInteger();
      AtomicInteger saturated = new AtomicInteger();
      for (CompletableFuture<HttpResponse<String>> request : burst) {
        HttpResponse<String> response = request.join();
        if (response.statusCode() == 200) {
          served.incrementAndGet();
        } else {
          assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
          assertThat(response.headers().firstValue("Cryo-Reason")).hasValue("saturated");
          assertThat(response.headers().firstValue("Retry-After")).isPresent();
          assertThat(response.body()).contains("at capacity").contains("\"error\":\"saturated\"");
          saturated.incrementAndGet();
        }
      }

      assertThat(served.get()).as("guests admitted").isBetween(1, 50);
      assertThat(saturated.get()).isEqualTo(80 - served.get());
      Poll.until("status.json counts the " + served + " guests born", () -> {
        JsonNode status = status(run);
        return status != null && status.path("users").path("placed").asInt() == served.get();
      });
      JsonNode status = status(run);
      assertThat(status.path("workers")).hasSize(1);
      assertThat(status.path("workers").get(0).path("users").asInt()).isEqualTo(served.get());
      assertThat(status.path("workers").get(0).path("state").asText()).isEqualTo("running");
      assertThat(ProcessHandle.of(workerPid).map(ProcessHandle::isAlive)).hasValue(true);
      assertThat(status.path("users").path("lost").asLong()).isZero();
    }
  }

  private static JsonNode status(ServeRun run) {
    try {
      return DemoClient.JSON.readTree(Files.readString(run.home().resolve("status.json")));
    } catch (java.io.IOException e) {
      return null; // not written yet, or being replaced
    }
  }
}
