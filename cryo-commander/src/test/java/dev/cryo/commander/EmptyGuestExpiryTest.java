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
 * Issue 23: a guest who never wrote anything, frozen by his worker's idle valve, leaves the freezer
 * after {@link Housekeeping#frozenEmptyGuestTtl()} (10 minutes) instead of a guest's 24 h; a guest
 * who wrote, frozen by the same valve, is kept for a guest's time. Real worker, real valve (the
 * worker's own clock, with second-long limits); the commander's clock is pushed past 10 minutes.
 */
@Timeout(180)
class EmptyGuestExpiryTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  @Test
  void aGuestFrozenHoldingNothingExpiresAfterTheShortTimeAndAWriterIsKept() throws Exception {
    ExpiryAndSweepTest.ShiftedClock clock = new ExpiryAndSweepTest.ShiftedClock();
    CommanderConfig config = CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(1).workerHeapBytes(128L * 1024 * 1024).clock(clock)
        .presentation(Duration.ofSeconds(60))
        .passivation(new Passivation(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .housekeeping(Housekeeping.DEFAULTS.withIntervals(Duration.ofMillis(100),
            Duration.ofHours(1)))
        .build();
    try (Commander commander = Commander.start(config)) {
      assertThat(send(commander, "c1", "GET", "/api/state", null).status()).isEqualTo(200);
      String page = JSON.readTree(send(commander, "c2", "POST", "/api/pages", null).body())
          .path("page").asText();
      assertThat(send(commander, "c2", "POST", "/api/counter", Map.of("page", page)).status())
          .isEqualTo(200);

      assertThat(eventually(Duration.ofSeconds(60), () -> commander.routing().counts().frozen()
          == 2)).as("both frozen by the valve").isTrue();
      Freezer freezer = new Freezer(home.resolve("freezer"));
      assertThat(freezer.userParcelHeader("guest_c1").orElseThrow().cause())
          .isEqualTo(ParcelHeader.EMPTY_GUEST_CAUSE);
      assertThat(freezer.userParcelHeader("guest_c2").orElseThrow().cause()).isEqualTo("idle");
      Path empty = freezer.folder("guest_c1");
      Path writer = freezer.folder("guest_c2");

      clock.shift = Duration.ofMinutes(11); // past 10 minutes, far within a guest's 24 h

      assertThat(eventually(Duration.ofSeconds(30), () -> !commander.knowsConnection("c1")
          && !Files.exists(empty))).isTrue();
      assertThat(writer).isDirectory();
      assertThat(commander.knowsConnection("c2")).isTrue();
      List<JsonNode> expired = events(commander, "user_expired");
      assertThat(expired).extracting(e -> e.path("user").asText()).containsExactly("guest_c1");
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
