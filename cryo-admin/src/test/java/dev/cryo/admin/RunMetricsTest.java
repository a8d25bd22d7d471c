package dev.cryo.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Status;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import dev.cryo.front.SocketStats;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RunMetricsTest {

  private final AtomicReference<Status> status =
      new AtomicReference<>(Statuses.running("main_0001", 3, "main_0002", 1));
  private final RunMetrics metrics = new RunMetrics(status::get);

  /** Sockets with fixed figures. */
  private static final class FixedSockets implements SocketStats {
    @Override
    public int open() {
      return 7;
    }

    @Override
    public long opened() {
      return 9;
    }

    @Override
    public long pushesDelivered() {
      return 11;
    }

    @Override
    public long pushesUndelivered() {
      return 2;
    }

    @Override
    public long slowReadersClosed() {
      return 1;
    }
  }

  @BeforeEach
  void bindSockets() {
    metrics.bindSockets(new FixedSockets());
  }

  @Test
  void everyMeterIsWrittenAsPrometheusTextThatParses() {
    PrometheusText text = PrometheusText.parse(metrics.scrape());
    assertThat(text.value("cryo_worker_users{worker=\"main_0001\"}")).isEqualTo(3.0);
    assertThat(text.value("cryo_worker_users{worker=\"main_0002\"}")).isEqualTo(1.0);
    assertThat(text.value("cryo_users{state=\"placed\"}")).isEqualTo(4.0);
    assertThat(text.value("cryo_users{state=\"frozen\"}")).isEqualTo(2.0);
    assertThat(text.value("cryo_freezer_bytes")).isEqualTo(12345.0);
    assertThat(text.value("cryo_freezer_free_bytes")).isEqualTo((double) (1L << 30));
    assertThat(text.value("cryo_sockets_open")).isEqualTo(7.0);
    assertThat(text.value("cryo_pushes_total{outcome=\"delivered\"}")).isEqualTo(11.0);
    assertThat(text.value("cryo_pushes_total{outcome=\"undelivered\"}")).isEqualTo(2.0);
    assertThat(text.value("cryo_sockets_slow_readers_closed_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_freezes_total")).isEqualTo(0.0);
    assertThat(text.type("cryo_http_request_latency_seconds")).isEqualTo("histogram");
    assertThat(text.type("cryo_wire_round_trip_seconds")).isEqualTo("histogram");
    assertThat(text.type("cryo_wake_latency_seconds")).isEqualTo("histogram");
  }

  @Test
  void theCountersMoveWithTheEventsTheyCount() {
    metrics.event("fold", Map.of("worker", "main_0001", "kind", "new_user", "user", "u"));
    metrics.event("fold", Map.of("worker", "main_0001", "kind", "new_page", "user", "u"));
    metrics.event("fold", Map.of("worker", "main_0001", "kind", "user_frozen", "user", "u"));
    metrics.event("move", new java.util.HashMap<>(Map.of("user", "u", "from", "main_0001",
        "to", "main_0002")));
    java.util.HashMap<String, Object> refused = new java.util.HashMap<>(Map.of("user", "v",
        "from", "main_0001", "refused", "no_destination"));
    refused.put("to", null);
    metrics.event("move", refused);
    metrics.event("fold", Map.of("worker", "main_0002", "kind", "user_adopted", "user", "u"));
    metrics.event("worker_died", Map.of("worker", "main_0002", "reason", "killed",
        "lost", List.of("a", "b", "c")));
    metrics.workerCall("main_0002", true, true, 3_000_000);
    metrics.workerCall("main_0002", false, true, 1_000_000);
    metrics.answered(200, 2_000_000);
    metrics.answered(200, 2_000_000);
    metrics.answered(503, 9_000_000);

    PrometheusText text = PrometheusText.parse(metrics.scrape());
    assertThat(text.value("cryo_births_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_freezes_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_wakes_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_moves_total{outcome=\"done\"}")).isEqualTo(1.0);
    assertThat(text.value("cryo_moves_total{outcome=\"refused\"}")).isEqualTo(1.0);
    assertThat(text.value("cryo_users_lost_total")).isEqualTo(3.0);
    assertThat(text.value("cryo_worker_deaths_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_http_requests_total{status=\"200\"}")).isEqualTo(2.0);
    assertThat(text.value("cryo_http_requests_total{status=\"503\"}")).isEqualTo(1.0);
    assertThat(text.value("cryo_http_request_latency_seconds_count")).isEqualTo(3.0);
    assertThat(text.value("cryo_http_request_latency_seconds_sum")).isCloseTo(0.013,
        org.assertj.core.data.Offset.offset(1e-9));
    assertThat(text.value("cryo_wire_round_trip_seconds_count")).isEqualTo(2.0);
    assertThat(text.value("cryo_wake_latency_seconds_count")).isEqualTo(1.0);
    assertThat(text.samples().keySet())
        .anyMatch(key -> key.startsWith("cryo_http_request_latency_seconds_bucket{le="));
  }

  @Test
  void theStateFieldsEachWorkerIgnoredAreExportedPerWorker() {
    Status base = Statuses.running("main_0001", 3, "main_0002", 1);
    List<Status.WorkerStatus> workers = base.workers().stream()
        .map(w -> new Status.WorkerStatus(w.name(), w.pid(), w.state(), w.users(),
            w.heapUsedBytes(), w.heapMaxBytes(), w.age(), w.reception(),
            w.name().equals("main_0002") ? 2 : 0))
        .toList();
    status.set(new Status(base.state(), base.takenAt(), base.invocationId(), base.pid(),
        base.since(), base.home(), workers, base.usersPlaced(), base.usersFrozen(),
        base.usersLost(), base.usersHeld(), base.connections(), base.pages(), base.anomalies(),
        base.freezer()));
    PrometheusText text = PrometheusText.parse(metrics.scrape());
    assertThat(text.value("cryo_state_fields_ignored{worker=\"main_0002\"}")).isEqualTo(2.0);
    assertThat(text.value("cryo_state_fields_ignored{worker=\"main_0001\"}")).isEqualTo(0.0);
  }

  @Test
  void aDeadWorkersRowLeavesTheUsersPerWorker() {
    PrometheusText before = PrometheusText.parse(metrics.scrape());
    assertThat(before.value("cryo_worker_users{worker=\"main_0002\"}")).isEqualTo(1.0);
    status.set(Statuses.running("main_0001", 4, "main_0003", 0));
    PrometheusText after = PrometheusText.parse(metrics.scrape());
    assertThat(after.value("cryo_worker_users{worker=\"main_0002\"}")).isNull();
    assertThat(after.value("cryo_worker_users{worker=\"main_0003\"}")).isEqualTo(0.0);
    assertThat(after.value("cryo_worker_users{worker=\"main_0001\"}")).isEqualTo(4.0);
  }

  @Test
  void aQuitsFreezesAreCountedByTheirFoldsAndItsEndAddsNone() {
    // A quit as the commander logs it: each freeze a fold, then the quit's counts.
    metrics.event("quit_begun", Map.of("worker", "main_0001", "held", 2, "grace_ms", 5000));
    metrics.event("fold", Map.of("worker", "main_0001", "kind", "user_frozen", "user", "a"));
    metrics.event("fold", Map.of("worker", "main_0001", "kind", "user_frozen", "user", "b"));
    metrics.event("quit_ended", Map.of("worker", "main_0001", "frozen", 2, "dropped", 0,
        "failed", 0, "cut", 0));
    metrics.event("worker_died", Map.of("worker", "main_0001", "reason", "it quit into the"
        + " freezer", "lost", List.of(), "planned", true));
    PrometheusText text = PrometheusText.parse(metrics.scrape());
    assertThat(text.value("cryo_freezes_total")).isEqualTo(2.0);
    assertThat(text.value("cryo_users_lost_total")).isEqualTo(0.0);
  }

  @Test
  void aPlannedQuitIsNotADeath() {
    metrics.event("worker_died", Map.of("worker", "main_0001", "reason", "it quit into the"
        + " freezer", "lost", List.of(), "planned", true));
    metrics.event("worker_died", Map.of("worker", "main_0002", "reason", "it quit into the"
        + " freezer (the worker died during its quit)", "lost", List.of("anna"), "planned",
        false));
    metrics.event("worker_died", Map.of("worker", "main_0003", "reason", "its wire ended",
        "lost", List.of()));
    PrometheusText text = PrometheusText.parse(metrics.scrape());
    assertThat(text.value("cryo_worker_deaths_total")).isEqualTo(2.0);
    assertThat(text.value("cryo_worker_quits_total")).isEqualTo(1.0);
    assertThat(text.value("cryo_users_lost_total")).isEqualTo(1.0);
  }
}
