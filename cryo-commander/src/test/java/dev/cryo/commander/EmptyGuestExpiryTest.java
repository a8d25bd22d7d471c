package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: a guest who never wrote anything and holds no page, passivated by his worker's idle
 * valve, is dropped, not frozen: no folder is made, the commander's maps forget him from the
 * worker's {@code drop_user} (a fold, as any drop), and his cookie, when it comes back, is answered
 * as an unknown connection's (the front then makes a new guest). A guest who wrote, passivated by
 * the same valve, is frozen and kept for a guest's time. Real worker, real valve (second-long
 * limits). The expiry of a frozen guest marked {@link ParcelHeader#EMPTY_GUEST_CAUSE} (one whose
 * pages hold nothing) after {@link Housekeeping#frozenEmptyGuestTtl()} is unchanged; the demo
 * makes no such guest any more (a page it opens writes the connection's tabs).
 */
@Timeout(180)
class EmptyGuestExpiryTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  @Test
  void aGuestWhoHoldsNothingIsDroppedByTheValveAndAWriterIsFrozen() throws Exception {
    CommanderConfig config = CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(1).workerHeapBytes(128L * 1024 * 1024)
        .presentation(Duration.ofSeconds(60))
        .passivation(new Passivation(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .build();
    try (Commander commander = Commander.start(config)) {
      assertThat(send(commander, "c1", "GET", "/api/state", null).status()).isEqualTo(200);
      String page = JSON.readTree(send(commander, "c2", "POST", "/api/pages", null).body())
          .path("page").asText();
      assertThat(send(commander, "c2", "POST", "/api/counter", Map.of("page", page)).status())
          .isEqualTo(200);

      assertThat(eventually(Duration.ofSeconds(60), () -> !commander.knowsConnection("c1")
          && commander.routing().counts().frozen() == 1)).as("c1 forgotten, c2 frozen").isTrue();
      Freezer freezer = new Freezer(home.resolve("freezer"));
      assertThat(freezer.userParcelHeader("guest_c2").orElseThrow().cause()).isEqualTo("idle");
      assertThat(Files.exists(freezer.folder("guest_c1"))).as("no folder for him").isFalse();
      assertThat(events(commander, "fold")).anySatisfy(fold -> {
        assertThat(fold.path("kind").asText()).isEqualTo("drop_user");
        assertThat(fold.path("user").asText()).isEqualTo("guest_c1");
      });
      assertThat(events(commander, "fold")).noneSatisfy(fold -> {
        assertThat(fold.path("kind").asText()).isEqualTo("user_frozen");
        assertThat(fold.path("user").asText()).isEqualTo("guest_c1");
      });

      Reply back = commander.serve(new Request("c1", "GET", "/api/state", "", List.of(),
          new byte[0], true));
      assertThat(back.forgottenConnection()).as("his cookie is an unknown one").isTrue();
      Reply woken = send(commander, "c2", "POST", "/api/counter", Map.of("page", page));
      assertThat(JSON.readTree(woken.body()).path("counter").asInt()).isEqualTo(2);
    }
  }

  private static Reply send(Commander commander, String connection, String method, String path,
      Object body) throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    return commander.serve(new Request(connection, method, path, "", headers, bytes));
  }
}
