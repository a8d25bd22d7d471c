package dev.cryo.admin;

import dev.cryo.commander.RunListener;
import dev.cryo.commander.Status;
import dev.cryo.front.RequestListener;
import dev.cryo.front.LimitStats;
import dev.cryo.front.SocketStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The run's metrics, the one place that knows Micrometer: it binds the seams of the other modules
 * to meters of a Prometheus registry. It is fed as things happen — the commander's events and
 * calls to workers ({@link RunListener}), the front's answered requests ({@link RequestListener})
 * — and reads the rest at each {@link #scrape}: the {@link Status} (users per worker, users
 * placed, frozen and held, the freezer) and the front's page sockets ({@link SocketStats}, bound
 * with {@link #bindSockets} once the front exists; zeros before).
 *
 * <p>The meters, by their Prometheus names (documented in docs/admin.md):
 * {@code cryo_http_requests_total{status}}, {@code cryo_http_request_latency_seconds} (histogram),
 * {@code cryo_wire_round_trip_seconds} (histogram: an {@code http} call from the commander to a
 * worker and its answer), {@code cryo_wake_latency_seconds} (histogram: such a call that woke its
 * user), {@code cryo_births_total}, {@code cryo_freezes_total}, {@code cryo_wakes_total},
 * {@code cryo_moves_total{outcome}}, {@code cryo_users_lost_total},
 * {@code cryo_worker_deaths_total} (unplanned deaths only), {@code cryo_worker_quits_total}
 * (planned ends: a reload's, a drain's quits), {@code cryo_worker_users{worker}}, {@code cryo_users{state}},
 * {@code cryo_state_fields_ignored{worker}}, {@code cryo_sockets_open}, {@code cryo_pushes_total{outcome}}, {@code cryo_freezer_bytes},
 * {@code cryo_freezer_free_bytes}; the front's limits ({@link LimitStats}, bound with
 * {@link #bindLimits}): {@code cryo_front_limit{limit}}, {@code cryo_front_connections_open},
 * {@code cryo_front_bodies_held_bytes}, {@code cryo_front_connections_refused_total},
 * {@code cryo_front_requests_cut_total}, {@code cryo_front_sockets_refused_total},
 * {@code cryo_front_bodies_refused_total}.
 *
 * <p>Thread-safe: the listeners may be called from any threads at once; {@link #scrape} is
 * serialised.
 */
public final class RunMetrics implements RunListener, RequestListener {

  /** The content type of {@link #scrape}: Prometheus' text exposition format 0.0.4. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Supplier<Status> status;
  private final Map<Integer, Counter> requestsByStatus = new ConcurrentHashMap<>();
  private final Timer requestLatency;
  private final Timer wireRoundTrip;
  private final Timer wakeLatency;
  private final Counter births;
  private final Counter freezes;
  private final Counter wakes;
  private final Counter movesDone;
  private final Counter movesRefused;
  private final Counter usersLost;
  private final Counter workerDeaths;
  private final Counter workerQuits;
  private final MultiGauge workerUsers;
  private final MultiGauge ignoredStateFields;
  private final AppMetersExport appMeters = new AppMetersExport(registry);
  private volatile Status latest;
  private volatile SocketStats sockets = NO_SOCKETS;
  private volatile LimitStats limits;

  /** The figures of a front without page sockets: all zeros. */
  static final SocketStats NO_SOCKETS = new SocketStats() {
    @Override
    public int open() {
      return 0;
    }

    @Override
    public long opened() {
      return 0;
    }

    @Override
    public long pushesDelivered() {
      return 0;
    }

    @Override
    public long pushesUndelivered() {
      return 0;
    }

    @Override
    public long slowReadersClosed() {
      return 0;
    }
  };

  /**
   * Metrics reading the run's status from {@code status} (called once per scrape, and once now).
   */
  public RunMetrics(Supplier<Status> status) {
    this.status = Objects.requireNonNull(status, "status");
    this.latest = status.get();
    requestLatency = histogram("cryo.http.request.latency",
        "From a request's arrival at the front to its reply");
    wireRoundTrip = histogram("cryo.wire.round.trip",
        "An http call from the commander to a worker over the wire, to its answer");
    wakeLatency = histogram("cryo.wake.latency",
        "An http call that woke its user from the freezer, to its answer");
    births = counter("cryo.births", "Users born (new_user folds)");
    freezes = counter("cryo.freezes", "Users frozen (user_frozen folds, a quit's freezes included)");
    wakes = counter("cryo.wakes", "Users woken from the freezer (user_adopted folds)");
    movesDone = Counter.builder("cryo.moves").description("Moves, done or refused")
        .tag("outcome", "done").register(registry);
    movesRefused = Counter.builder("cryo.moves").description("Moves, done or refused")
        .tag("outcome", "refused").register(registry);
    usersLost = counter("cryo.users.lost", "Users lost with a dead worker");
    workerDeaths = counter("cryo.worker.deaths", "Workers that died unplanned (a crash, a kill, a"
        + " silence, a quit that failed)");
    workerQuits = counter("cryo.worker.quits", "Workers ended as planned: a quit into the freezer"
        + " that reported (a reload, a drain, a shrink, an operator's quit)");
    ignoredStateFields = MultiGauge.builder("cryo.state.fields.ignored")
        .description("Distinct stored fields (a state class and a field name) the application's"
            + " state classes no longer have, ignored on read since each worker started: a field"
            + " renamed without a new state version loses its value (see the worker's log)")
        .register(registry);
    workerUsers = MultiGauge.builder("cryo.worker.users")
        .description("Users living on each worker").register(registry);
    for (String state : List.of("placed", "frozen", "held")) {
      Gauge.builder("cryo.users", this, metrics -> usersIn(metrics.latest, state))
          .description("Users placed on a worker, frozen, and held right now")
          .tag("state", state).register(registry);
    }
    gauge("cryo.freezer.bytes", "The bytes of the working freezer's files",
        metrics -> metrics.latest.freezer().bytes());
    gauge("cryo.freezer.free.bytes", "The bytes the freezer's file system may still take",
        metrics -> metrics.latest.freezer().usableBytes());
    Gauge.builder("cryo.sockets.open", this, metrics -> metrics.sockets.open())
        .description("Page sockets open on the front").register(registry);
    FunctionCounter.builder("cryo.pushes", this, metrics -> metrics.sockets.pushesDelivered())
        .description("Pushes delivered to a socket, or finding none").tag("outcome", "delivered")
        .register(registry);
    FunctionCounter.builder("cryo.pushes", this, metrics -> metrics.sockets.pushesUndelivered())
        .description("Pushes delivered to a socket, or finding none")
        .tag("outcome", "undelivered").register(registry);
    FunctionCounter.builder("cryo.sockets.slow.readers.closed", this,
            metrics -> metrics.sockets.slowReadersClosed())
        .description("Page sockets closed because their reader fell behind").register(registry);
    frontLimits();
    refreshWorkers(latest);
  }

  /** The meters of the front's limits ({@link LimitStats}): zeros until bound. */
  private void frontLimits() {
    Gauge.builder("cryo.front.connections.open", this,
            metrics -> metrics.limits == null ? 0 : metrics.limits.connectionsOpen())
        .description("TCP connections open on the public port").register(registry);
    Gauge.builder("cryo.front.bodies.held", this,
            metrics -> metrics.limits == null ? 0 : metrics.limits.bodyBytesHeld())
        .description("Request-body bytes held now, across all requests").baseUnit("bytes")
        .register(registry);
    refusals("cryo.front.connections.refused", "TCP connections closed as soon as accepted,"
        + " over --max-connections or --max-connections-per-address", LimitStats::connectionsRefused);
    refusals("cryo.front.requests.cut", "Connections closed because a request took longer than"
        + " --request-timeout to arrive", LimitStats::slowRequestsCut);
    refusals("cryo.front.sockets.refused", "Page sockets closed as soon as opened, over"
        + " --max-sockets or --max-sockets-per-connection", LimitStats::socketsRefused);
    refusals("cryo.front.bodies.refused", "Requests and socket calls refused 503, their body over"
        + " --max-buffered-bodies", LimitStats::bodiesRefused);
    limit("max_connections", stats -> stats.clients().maxConnections());
    limit("max_connections_per_address", stats -> stats.clients().maxConnectionsPerAddress());
    limit("request_timeout_seconds", stats -> stats.clients().requestTimeout().toMillis() / 1000.0);
    limit("max_sockets", stats -> stats.clients().maxSockets());
    limit("max_sockets_per_connection", stats -> stats.clients().maxSocketsPerConnection());
    limit("max_buffered_body_bytes", LimitStats::bodyBytesLimit);
    refusals("cryo.front.new.visitors.refused", "Requests without a known cookie refused 429,"
        + " their address over --new-visitors-per-address", LimitStats::newVisitorsRefused);
    limit("new_visitors_per_address_per_second", stats -> stats.newVisitors().perSecond());
    limit("new_visitors_per_address_burst", stats -> stats.newVisitors().burst());
  }

  private void refusals(String name, String description,
      java.util.function.ToLongFunction<LimitStats> count) {
    FunctionCounter.builder(name, this,
            metrics -> metrics.limits == null ? 0 : count.applyAsLong(metrics.limits))
        .description(description).register(registry);
  }

  private void limit(String limit, ToDoubleFunction<LimitStats> value) {
    Gauge.builder("cryo.front.limit", this,
            metrics -> metrics.limits == null ? 0 : value.applyAsDouble(metrics.limits))
        .description("The front's limits as set (cryo serve's options; docs/security.md)")
        .tag("limit", limit).register(registry);
  }

  /** Reads the front's limits and their refusals from {@code stats} from now on. */
  public void bindLimits(LimitStats stats) {
    this.limits = Objects.requireNonNull(stats, "stats");
  }

  private Timer histogram(String name, String description) {
    return Timer.builder(name).description(description).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(100_000)).maximumExpectedValue(Duration.ofSeconds(60))
        .register(registry);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  private void gauge(String name, String description, ToDoubleFunction<RunMetrics> value) {
    Gauge.builder(name, this, value).description(description).baseUnit("bytes")
        .register(registry);
  }

  private static double usersIn(Status status, String state) {
    return switch (state) {
      case "placed" -> status.usersPlaced();
      case "frozen" -> status.usersFrozen();
      default -> status.usersHeld();
    };
  }

  /** Reads the page sockets' figures from {@code stats} from now on. */
  public void bindSockets(SocketStats stats) {
    this.sockets = Objects.requireNonNull(stats, "stats");
  }

  /** The page sockets' figures bound, or zeros. */
  SocketStats sockets() {
    return sockets;
  }

  @Override
  public void answered(int status, long nanos) {
    requestsByStatus.computeIfAbsent(status, code -> Counter.builder("cryo.http.requests")
        .description("Application requests answered, by status")
        .tag("status", Integer.toString(code)).register(registry)).increment();
    requestLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void event(String event, Map<String, Object> fields) {
    switch (event) {
      case "fold" -> {
        switch (String.valueOf(fields.get("kind"))) {
          case "new_user" -> births.increment();
          case "user_frozen" -> freezes.increment(); // a quit's freezes are folds too
          case "user_adopted" -> wakes.increment();
          default -> { }
        }
      }
      case "move" -> (fields.get("refused") == null ? movesDone : movesRefused).increment();
      case "repair" -> Counter.builder("cryo.repairs")
          .description("Repairs of the routing maps: a worker held what the maps did not give it")
          .tag("kind", String.valueOf(fields.get("kind"))).register(registry).increment();
      case "worker_died" -> {
        (Boolean.TRUE.equals(fields.get("planned")) ? workerQuits : workerDeaths).increment();
        if (fields.get("lost") instanceof Collection<?> lost) {
          usersLost.increment(lost.size());
        }
      }
      default -> { }
    }
  }

  @Override
  public void workerCall(String worker, boolean woke, boolean answered, long nanos) {
    wireRoundTrip.record(nanos, TimeUnit.NANOSECONDS);
    if (woke && answered) {
      wakeLatency.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Takes the status, refreshes the gauges that read it, and writes every meter as text. */
  public synchronized String scrape() {
    Status now = status.get();
    latest = now;
    refreshWorkers(now);
    return registry.scrape();
  }

  private void refreshWorkers(Status now) {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    List<MultiGauge.Row<?>> ignored = new ArrayList<>();
    for (Status.WorkerStatus worker : now.workers()) {
      rows.add(MultiGauge.Row.of(Tags.of("worker", worker.name()), worker.users()));
      ignored.add(MultiGauge.Row.of(Tags.of("worker", worker.name()),
          worker.ignoredStateFields()));
    }
    workerUsers.register(rows, true); // a dead worker's row goes
    ignoredStateFields.register(ignored, true);
    appMeters.refresh(now.workers());
  }
}
