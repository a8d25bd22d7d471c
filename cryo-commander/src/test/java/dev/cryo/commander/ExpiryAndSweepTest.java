package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.Freezer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiry and sweep on a short clock, over real workers serving the demo: frozen guests past their
 * time to live and orphan folders go; a frozen user within his, an awake guest and their folders
 * stay.
 */
@Timeout(180)
class ExpiryAndSweepTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path home;

  /** The wall clock, pushed forward by the test. */
  static final class ShiftedClock extends Clock {
    volatile Duration shift = Duration.ZERO;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(shift);
    }
  }

  private static JsonNode call(Commander commander, String connection, String path,
      Object body) throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    Reply reply = commander.serve(new Request(connection, "POST", path, "", headers, bytes));
    assertThat(reply.status()).as("%s %s: %s", connection, path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static int count(Commander commander, String connection, String page) throws Exception {
    return call(commander, connection, "/api/counter", Map.of("page", page)).path("counter")
        .asInt();
  }

  @Test
  void theExpiredAndTheOrphansGoAndNothingClaimedGoes() throws Exception {
    ShiftedClock clock = new ShiftedClock();
    CommanderConfig config = CommanderConfig.builder(home, "dev.cryo.demo.DemoApplication")
        .workers(1).workerHeapBytes(128L * 1024 * 1024).clock(clock)
        .presentation(Duration.ofSeconds(60)) // a loaded machine starts a JVM slowly
        .housekeeping(Housekeeping.DEFAULTS.withIntervals(Duration.ofMillis(100),
            Duration.ofMillis(150)))
        .build();
    try (Commander commander = Commander.start(config)) {
      String guestPage = call(commander, "c1", "/api/pages", null).path("page").asText();
      assertThat(count(commander, "c1", guestPage)).isEqualTo(1); // guest_c1, to be frozen
      String annaPage = call(commander, "c2", "/api/pages", null).path("page").asText();
      count(commander, "c2", annaPage);
      call(commander, "c2", "/api/login", Map.of("user", "anna")); // anna, to be frozen
      String awakePage = call(commander, "c3", "/api/pages", null).path("page").asText();
      assertThat(count(commander, "c3", awakePage)).isEqualTo(1); // guest_c3, to be woken

      String worker = commander.status().workers().get(0).name();
      QuitOutcome quit = commander.quitWorker(worker, Duration.ofSeconds(5));
      assertThat(quit.lost()).as(quit.message()).isEmpty();
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .anyMatch(w -> w.state() == WorkerState.RUNNING))).isTrue(); // the replacement
      assertThat(count(commander, "c3", awakePage)).isEqualTo(2); // awake again elsewhere

      Freezer freezer = new Freezer(home.resolve("freezer"));
      assertThat(freezer.tryTakeSemaphore("ghost", "the test")).isTrue(); // an orphan folder
      freezer.writeUserParcel("ghost", Map.of("kind", "user"), "the test", "freeze", "main");
      Path ghost = freezer.folder("ghost");
      Path guest = freezer.folder("guest_c1");
      Path anna = freezer.folder("anna");
      // a folder whose semaphore is taken is never swept: its holder is at work in it
      assertThat(commander.sweepFreezer()).doesNotContain(Freezer.key("ghost"));
      assertThat(ghost).isDirectory();
      freezer.releaseSemaphore("ghost", "the test");
      assertThat(guest).isDirectory();
      assertThat(anna).isDirectory();

      clock.shift = Duration.ofHours(25); // past a guest's 24 h, far within a user's 720 h

      assertThat(eventually(Duration.ofSeconds(30), () -> !commander.knowsConnection("c1")
          && !Files.exists(guest) && !Files.exists(ghost))).isTrue();

      // nothing claimed went: anna's folder and connection, the awake guest
      assertThat(anna).isDirectory();
      assertThat(commander.knowsConnection("c2")).isTrue();
      assertThat(commander.knowsConnection("c3")).isTrue();
      assertThat(count(commander, "c2", annaPage)).isEqualTo(2); // anna woke with her state
      assertThat(count(commander, "c3", awakePage)).isEqualTo(3);
      // the expired guest's cookie now arrives anonymous: a new guest, with nothing of the old
      String newPage = call(commander, "c1", "/api/pages", null).path("page").asText();
      assertThat(count(commander, "c1", newPage)).isEqualTo(1);

      List<JsonNode> expired = events(commander, "user_expired");
      assertThat(expired).extracting(e -> e.path("user").asText()).containsExactly("guest_c1");
      assertThat(events(commander, "sweep")).anySatisfy(sweep -> assertThat(sweep.path("keys"))
          .extracting(JsonNode::asText).containsExactly(Freezer.key("ghost")));
    }
  }
}
