package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes, with real signals: a worker that stops reading its wire ({@code SIGSTOP}) while
 * a call's writer is blocked inside a frame holding the wire's write lock is still found silent by
 * the heartbeat, its process group killed and buried as any dead worker (its awake users lost by
 * name, a replacement started), within a few beats: the tick never waits behind that lock.
 */
@Timeout(180)
class StoppedReaderTest {

  @TempDir
  Path home;

  @Test
  void aWorkerThatStopsReadingUnderABlockedWriterIsKilledByTheHeartbeat() throws Exception {
    Duration beat = Duration.ofSeconds(2); // two beats of silence kill: room for a loaded setup
    try (Commander commander = Commander.start(config(home).workers(2).heartbeat(beat)
        .hold(Duration.ofSeconds(60)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String reception = commander.serve(get("c1", "/counter")).bodyText();
      assertThat(commander.serve(get("c2", "/counter")).bodyText())
          .isEqualTo("user=guest_c2 counter=1 " + reception.substring(reception.indexOf("worker=")));
      Status.WorkerStatus worker = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow();
      assertThat(reception).endsWith("worker=" + worker.name());

      FakeWorkers.signal("STOP", worker.pid());
      try {
        byte[] big = new byte[4 << 20]; // far past the socket's buffers: its writer blocks
        Arrays.fill(big, (byte) 'x');
        CompletableFuture<Reply> blocked = new CompletableFuture<>();
        Thread writer = Thread.ofPlatform().daemon().start(() -> blocked.complete(
            commander.serve(new Request("c1", "POST", "/counter", "", List.of(), big))));
        assertThat(eventually(Duration.ofSeconds(60),
            () -> FakeWorkers.inside(writer, "ChannelIo.writeFully"))).isTrue();

        // Two beats of silence kill it; 30 beats leave a loaded machine room; a tick stuck
        // behind the blocked writer's lock never gets there.
        assertThat(eventually(beat.multipliedBy(30), () -> FakeWorkers.count(commander,
            "worker_died") > 0)).as("the stopped worker was declared dead").isTrue();
        JsonNode death = events(commander, "worker_died").get(0);
        assertThat(death.path("worker").asText()).isEqualTo(worker.name());
        // Stopped, it is both silent and deaf to its pings: whichever count the tick finds past
        // two beats first names the death (a ping still unanswered when it stopped may be older
        // than the last frame it sent).
        assertThat(death.path("reason").asText()).satisfiesAnyOf(
            reason -> assertThat(reason).contains("silent"),
            reason -> assertThat(reason).isEqualTo(Supervisor.UNANSWERED));
        assertThat(death.path("lost")).extracting(JsonNode::asText)
            .containsExactly("guest_c1", "guest_c2");
        assertThat(eventually(Duration.ofSeconds(30), () -> FakeWorkers.gone(worker.pid())))
            .as("its process was killed").isTrue();

        Reply cut = blocked.get(60, TimeUnit.SECONDS); // its frame was being written
        assertThat(cut.status()).as(cut.bodyText()).isEqualTo(502);
        assertThat(commander.knowsConnection("c2")).isFalse();
        Reply again = commander.serve(get("c2", "/counter"));
        assertThat(again.bodyText()).startsWith("user=guest_c2 counter=1 worker=")
            .doesNotEndWith("worker=" + worker.name());
        assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      } finally {
        FakeWorkers.signal("CONT", worker.pid()); // a no-op once it is dead
      }
    }
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
