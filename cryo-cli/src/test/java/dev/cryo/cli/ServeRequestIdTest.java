package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code cryo serve}: the request id the front minted and answered with
 * ({@code Cryo-Request-Id}) is in the line the demo's handler wrote to the worker's log through
 * {@code call.log()}, and in the event log's folds the request caused; a client's own id is never
 * taken.
 */
@Timeout(300)
class ServeRequestIdTest {

  @TempDir Path scratch;

  @Test
  void theIdInTheReplyNamesTheWorkersLineAndTheEventLogsFolds() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1");
    HttpClient http = HttpClient.newHttpClient();
    try {
      HttpResponse<String> first = http.send(HttpRequest.newBuilder(run.base()
              .resolve("/api/pages")).header("Cryo-Request-Id", "chosen-by-the-client")
          .header("X-Request-Id", "chosen-by-the-client").POST(BodyPublishers.noBody()).build(),
          BodyHandlers.ofString());
      assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
      String id = first.headers().firstValue("Cryo-Request-Id").orElseThrow();
      assertThat(id).matches("[A-Za-z0-9_-]{16}");
      String page = DemoClient.JSON.readTree(first.body()).path("page").asText();
      HttpResponse<String> second = http.send(HttpRequest.newBuilder(run.base()
          .resolve("/api/pages")).POST(BodyPublishers.noBody()).build(), BodyHandlers.ofString());
      assertThat(second.headers().allValues("Cryo-Request-Id")).hasSize(1)
          .doesNotContain(id);

      Path workers = run.home().resolve("workers");
      Poll.until("the worker's log has the handler's line of request " + id,
          () -> workerLines(workers).stream().anyMatch(line -> line.contains(
              " request=" + id + ": opened page " + page)));

      Poll.until("the event log has the folds of request " + id,
          () -> !folds(run.home(), id).isEmpty());
      List<JsonNode> folds = folds(run.home(), id);
      assertThat(folds).extracting(fold -> fold.path("kind").asText())
          .contains("new_user", "new_connection", "new_page");
      assertThat(folds).filteredOn(fold -> fold.path("kind").asText().equals("new_page"))
          .extracting(fold -> fold.path("keys").get(0).asText()).containsExactly(page);
    } finally {
      http.close();
      run.close();
    }
  }

  private static List<String> workerLines(Path workers) {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(workers)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        lines.addAll(Files.readAllLines(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }

  private static List<JsonNode> folds(Path home, String id) {
    List<JsonNode> folds = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(home.resolve("events.jsonl"))) {
        JsonNode event = DemoClient.JSON.readTree(line);
        if (event.path("event").asText().equals("fold")
            && event.path("request").asText().equals(id)) {
          folds.add(event);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return folds;
  }
}
