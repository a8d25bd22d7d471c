package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints on a full disk: the run's home is a small tmpfs, filled to the last byte after a
 * user's first checkpoint. His next calls are served (a click, and notes that grow his state past
 * the pages his parcel files hold: a checkpoint no larger than the last one fits in them even on a
 * full disk), their checkpoint is refused (the one on disk stays the older one, whole), and he
 * stays due: once space returns, the next walk writes it without
 * another call of his. A {@code kill -9} of his worker then brings him back from it, named
 * {@code restored}, with the click made while the disk was full.
 */
class CheckpointFullDiskTest {

  private static final Duration PERIOD = Duration.ofMillis(200);
  /** Notes of 500 characters added while the disk is full: 10 KB more than his parcel held. */
  private static final int NOTES = 20;

  /** The longest note the demo takes. */
  private static final class DemoNote {
    static final int LENGTH = dev.cryo.demo.DemoApplication.MAX_NOTE_LENGTH;
  }

  @TempDir Path scratch;

  @Test
  void aCheckpointRefusedByAFullDiskIsWrittenOnceSpaceReturns() throws Exception {
    Path home = scratch.resolve("home");
    Files.createDirectories(home);
    try (TmpfsHome disk = TmpfsHome.mount(home, 32)) {
      CommanderConfig config = CommanderConfig.builder(home, ServeCommand.DEMO).workers(2)
          .workerHeapBytes(128L << 20).heartbeat(Duration.ofSeconds(1)).checkpoint(PERIOD)
          .build();
      try (Commander commander = Commander.start(config);
          Front front = Front.builder(Upstream.of(commander)).port(0).build();
          ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
          HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
        front.start();
        URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
        Freezer freezer = new Freezer(home.resolve("freezer"));
        String user = "kept";
        DemoClient tab = new DemoClient(http, base);
        String page = tab.openPage();
        assertThat(tab.post("/api/login", Map.of("user", user)).status()).isEqualTo(200);
        Instant first = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Answer one = tab.post("/api/counter", Map.of("page", page));
        assertThat(one.number("counter")).isEqualTo(1);
        String worker = one.field("worker");
        awaitCheckpoint(freezer, user, first);

        disk.keepFull();
        Instant second = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Answer two = tab.post("/api/counter", Map.of("page", page));
        assertThat(two.status()).as("served on a full disk: %s", two.text()).isEqualTo(200);
        assertThat(two.number("counter")).isEqualTo(2);
        java.util.Random random = new java.util.Random(22);
        for (int i = 0; i < NOTES; i++) { // his state grows past the pages his parcels hold
          byte[] noise = new byte[DemoNote.LENGTH * 3 / 4]; // 500 characters that do not shrink
          random.nextBytes(noise);
          Answer note = tab.post("/api/notes", Map.of("page", page, "text",
              java.util.Base64.getEncoder().encodeToString(noise)));
          // A note is durable: on a full disk it is kept and served, and said not durable yet.
          assertThat(note.status()).as("a durable note on a full disk: %s", note.text())
              .isEqualTo(503);
          assertThat(note.field("error")).isEqualTo("not_durable");
        }
        // Five periods with the disk full: a checkpoint would have been written in the first.
        Thread.sleep(PERIOD.multipliedBy(5).toMillis()); // an absence is waited for, not polled
        assertThat(header(freezer, user).orElseThrow().writtenAt()).as("the refused checkpoint"
            + " left the older one whole").isBefore(second);

        disk.empty();
        awaitCheckpoint(freezer, user, second); // tried again with no call of his

        ChildCryo.kill("KILL", WorkerDeathTest.pidOf(commander.status(), worker));
        Poll.until("the commander saw " + worker + " die", () -> commander.status().workers()
            .stream().noneMatch(row -> row.name().equals(worker)));
        JsonNode died = WorkerDeathTest.lastEvent(commander.eventLog(), "worker_died");
        assertThat(died.path("restored").toString()).contains("\"" + user + "\"");
        Answer read = tab.get("/api/state?page=" + page);
        assertThat(read.status()).as(read.text()).isEqualTo(200);
        assertThat(read.number("counter")).as("the click made while the disk was full")
            .isEqualTo(2);
        assertThat(read.json().path("notes").size()).as("the notes written while it was full,"
            + " answered not durable then, kept and written once space returned").isEqualTo(NOTES);
      }
    }
  }

  /**
   * A soak's defect: a login here is durable, and on a full disk it was answered 503
   * {@code not_durable} without the new cookie it had given the connection: the browser kept the
   * retired one, refused for the grace, then made a new guest, and his pages went. The login ran,
   * so its reply gives the new cookie whatever its status.
   */
  @Test
  void aLoginNotDurableOnAFullDiskStillGivesItsNewCookie() throws Exception {
    Path home = scratch.resolve("login-home");
    Files.createDirectories(home);
    try (TmpfsHome disk = TmpfsHome.mount(home, 32)) {
      CommanderConfig config = CommanderConfig.builder(home, ServeCommand.DEMO).workers(1)
          .workerHeapBytes(128L << 20).heartbeat(Duration.ofSeconds(1)).checkpoint(PERIOD)
          .build();
      try (Commander commander = Commander.start(config);
          Front front = Front.builder(Upstream.of(commander)).port(0).build();
          ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
          HttpClient http = HttpClient.newBuilder().executor(threads).build()) {
        front.start();
        URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
        DemoClient tab = new DemoClient(http, base);
        String page = tab.openPage();
        String before = tab.cookie();

        disk.keepFull();
        Answer login = tab.post("/api/login", Map.of("user", "anna", "page", page));
        assertThat(login.status()).as(login.text()).isEqualTo(503);
        assertThat(login.field("error")).isEqualTo("not_durable");
        assertThat(tab.cookie()).as("the login's new cookie, given with its 503")
            .isNotEqualTo(before);
        Answer state = tab.get("/api/state?page=" + page);
        assertThat(state.status()).as(state.text()).isEqualTo(200);
        assertThat(state.field("user")).isEqualTo("anna");
      }
    }
  }

  private static void awaitCheckpoint(Freezer freezer, String user, Instant since)
      throws InterruptedException {
    Poll.until("a checkpoint of " + user + " begun after " + since, Duration.ofSeconds(10),
        () -> header(freezer, user).filter(h -> ParcelHeader.CHECKPOINT_CAUSE.equals(h.cause())
            && !h.writtenAt().isBefore(since)).isPresent());
  }

  private static Optional<ParcelHeader> header(Freezer freezer, String user) {
    try {
      return freezer.userParcelHeader(user);
    } catch (java.io.IOException e) { // a write under way: asked again
      return Optional.empty();
    }
  }
}
