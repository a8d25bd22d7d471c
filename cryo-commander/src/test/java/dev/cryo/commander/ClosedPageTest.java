package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page closed by a call ({@code Call.closePage}) on a real worker process: the commander's maps
 * drop it before the call's reply arrives, so a push to it reaches no socket, a later call on it
 * is {@code 404 unknown_page}, and the connection stays.
 */
@Timeout(180)
class ClosedPageTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  private static Reply send(Commander commander, String method, String pathAndQuery)
      throws Exception {
    int mark = pathAndQuery.indexOf('?');
    return commander.serve(new Request("c1", method,
        mark < 0 ? pathAndQuery : pathAndQuery.substring(0, mark),
        mark < 0 ? "" : pathAndQuery.substring(mark + 1), List.of(), new byte[0]));
  }

  private static JsonNode ok(Reply reply) throws Exception {
    assertThat(reply.status()).as(reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  @Test
  void aClosedPageLeavesTheMapsBeforeTheReplyAndIsUnknownFromThenOn() throws Exception {
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        TabsApplication.class.getName()).workers(1).workerHeapBytes(128L * 1024 * 1024)
        .build())) {
      commander.pushSink((connection, page, data) -> delivered.add(page));
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .anyMatch(w -> w.state() == WorkerState.RUNNING))).isTrue();
      String first = ok(send(commander, "POST", "/open")).path("page").asText();
      String second = ok(send(commander, "POST", "/open")).path("page").asText();
      assertThat(ok(send(commander, "POST", "/push?page=" + first)).path("pages").asInt())
          .isEqualTo(1);
      assertThat(delivered).containsExactly(first);
      int pagesBefore = commander.status().pages();

      assertThat(ok(send(commander, "POST", "/close?page=" + first)).path("closed").asBoolean())
          .isTrue();

      assertThat(commander.status().pages()).as("dropped from the maps before the reply")
          .isEqualTo(pagesBefore - 1);
      JsonNode pushed = ok(send(commander, "POST", "/push?page=" + first));
      assertThat(pushed.path("pages").asInt()).isZero();
      assertThat(delivered).as("no push to the closed page").containsExactly(first);
      Reply later = send(commander, "GET", "/note?page=" + first);
      assertThat(later.status()).isEqualTo(404);
      assertThat(JSON.readTree(later.body()).path("error").asText()).isEqualTo("unknown_page");
      assertThat(ok(send(commander, "GET", "/pages")).path("pages").toString())
          .isEqualTo("[\"" + second + "\"]");
      assertThat(commander.knowsConnection("c1")).isTrue();
      assertThat(commander.status().anomalies()).as("anomalies: %s",
          events(commander, "anomaly")).isZero();
    }
  }
}
