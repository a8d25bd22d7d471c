package dev.cryo.admin;

import dev.cryo.commander.RunListener;
import dev.cryo.commander.Status;
import dev.cryo.front.RequestListener;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Handler;

/**
 * The admin side of one run: the status page, {@code status.json} and the metrics, served on an
 * admin port of their own ({@link #listen}) and, with a token, on the public port too
 * ({@link #publicHandler()}). It is fed by the run through two seams it hands out:
 * {@link #runListener()} for the commander ({@code Commander.addListener}) and
 * {@link #requestListener()} for the front; it reads the status through the supplier it was made
 * with, and samples it every {@link Builder#sampleInterval} for the chart of users per worker.
 *
 * <pre>{@code
 * Admin admin = Admin.builder(commander::status).token(null).build();
 * commander.addListener(admin.runListener());
 * Front front = Front.builder(Upstream.of(commander)).requestListener(admin.requestListener())
 *     .build();
 * AdminListener port = admin.listen("127.0.0.1", 9090); // http://127.0.0.1:9090/_cryo/status
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} ends the live streams and the sampling, and closes the ports it
 * opened.
 */
public final class Admin implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Admin.class.getName());

  private final Supplier<Status> status;
  private final AdminToken token;
  private final EventBoard events;
  private final UsersHistory history;
  private final RunMetrics metrics;
  private final LiveStreams streams;
  private final StatusView view;
  private final ScheduledExecutorService sampler;
  private final RunListener runListener;
  private final java.util.List<AdminListener> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  private Admin(Builder builder) {
    this.status = builder.status;
    this.token = builder.token;
    this.events = new EventBoard(builder.eventsKept, builder.clock);
    if (builder.eventLog != null) {
      events.seed(EventLogTail.read(EventLogTail.files(builder.eventLog),
          EventLogTail.MAX_BYTES));
    }
    this.history = new UsersHistory(builder.samplesKept);
    this.metrics = new RunMetrics(status);
    this.view = new StatusView(status, events, history, metrics::sockets);
    this.streams = new LiveStreams(view, builder.streamInterval, builder.maxStreams);
    this.runListener = new RunListener() {
      @Override
      public void event(String event, Map<String, Object> fields) {
        events.event(event, fields);
        metrics.event(event, fields);
      }

      @Override
      public void workerCall(String worker, boolean woke, boolean answered, long nanos) {
        metrics.workerCall(worker, woke, answered, nanos);
      }
    };
    this.sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-admin-sampler");
      thread.setDaemon(true);
      return thread;
    });
    long every = builder.sampleInterval.toMillis();
    sampler.scheduleWithFixedDelay(this::sample, 0, every, TimeUnit.MILLISECONDS);
  }

  /** A builder of the admin of the run whose status {@code status} takes (from any thread). */
  public static Builder builder(Supplier<Status> status) {
    return new Builder(status);
  }

  private void sample() {
    try {
      history.sample(status.get());
    } catch (RuntimeException e) { // a throw would cancel every later sample
      LOG.log(Level.WARNING, "the status could not be sampled for the chart: " + e);
    }
  }

  /** What the commander tells (its events and calls to workers); give it to the commander. */
  public RunListener runListener() {
    return runListener;
  }

  /** What the front tells (each request answered); give it to the front. */
  public RequestListener requestListener() {
    return metrics;
  }

  /**
   * The admin paths for the public port: present only with a token, which every request there
   * must then prove; mount it with the front's {@code addCryoHandler}.
   */
  public Optional<Handler> publicHandler() {
    return token == null ? Optional.empty()
        : Optional.of(new AdminHandler(true, token, view, metrics, streams));
  }

  /**
   * Opens an admin port on {@code bind}:{@code port} (0: any free port).
   *
   * @throws IllegalArgumentException when {@code bind} is not a loopback address and this admin
   *     has no token: the status and metrics are never served to the network without one
   * @throws AdminException {@value AdminException#PORT_UNAVAILABLE} when it cannot be bound
   */
  public AdminListener listen(String bind, int port) {
    if (token == null && !isLoopbackAddress(bind)) {
      throw new IllegalArgumentException("the admin listener is bound to " + bind + ", which is"
          + " not a loopback address, and no admin token is set; nothing was opened: bind it to"
          + " 127.0.0.1, or set --admin-token");
    }
    AdminListener listener = new AdminListener(bind, port,
        new AdminHandler(false, token, view, metrics, streams));
    listener.start();
    listeners.add(listener);
    return listener;
  }

  /** Whether {@code address} names only this machine (a name is resolved; unknown is false). */
  public static boolean isLoopbackAddress(String address) {
    try {
      for (InetAddress resolved : InetAddress.getAllByName(address)) {
        if (!resolved.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Reads the front's page sockets (open, pushes delivered and undelivered) from {@code stats}
   * from now on, for the metrics and the page: the front is built after the admin, whose
   * listeners it takes, so its figures are bound here once it exists (zeros before).
   */
  public void bindSockets(dev.cryo.front.SocketStats stats) {
    metrics.bindSockets(stats);
  }

  /** Reads the front's limits and their refusals from {@code stats} from now on (metrics). */
  public void bindLimits(dev.cryo.front.LimitStats stats) {
    metrics.bindLimits(stats);
  }

  /** The metrics, for a test or an embedding. */
  public RunMetrics metrics() {
    return metrics;
  }

  /** Ends the live streams and the sampling, and closes the admin ports; idempotent. */
  @Override
  public void close() {
    streams.close();
    sampler.shutdownNow();
    listeners.forEach(AdminListener::close);
  }

  /** Builds an {@link Admin}; not thread-safe. */
  public static final class Builder {
    private final Supplier<Status> status;
    private AdminToken token;
    private Clock clock = Clock.systemUTC();
    private Duration streamInterval = Duration.ofSeconds(1);
    private Duration sampleInterval = Duration.ofSeconds(2);
    private int samplesKept = 300;
    private int eventsKept = 200;
    private int maxStreams = 8;
    private java.nio.file.Path eventLog;

    private Builder(Supplier<Status> status) {
      this.status = Objects.requireNonNull(status, "status");
    }

    /** The admin token, or null for none (default none); {@code @return} this builder. */
    public Builder token(AdminToken value) {
      this.token = value;
      return this;
    }

    /** The clock of the events' times (default UTC); @return this builder. */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** How often a live stream sends the page its document (default 1 s); @return this. */
    public Builder streamInterval(Duration value) {
      this.streamInterval = positive(value, "streamInterval");
      return this;
    }

    /** How often users per worker are sampled for the chart (default 2 s); @return this. */
    public Builder sampleInterval(Duration value) {
      this.sampleInterval = positive(value, "sampleInterval");
      return this;
    }

    /**
     * The run's event log (its live file: the parts it was rotated into beside it are read
     * too, oldest first), whose last lines the latest events start with (default none: they
     * start empty); @return this builder.
     */
    public Builder eventLog(java.nio.file.Path value) {
      this.eventLog = value;
      return this;
    }

    /** How many live streams may be open at once (default 8); @return this builder. */
    public Builder maxStreams(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("at least 1 live stream, not " + value);
      }
      this.maxStreams = value;
      return this;
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, not " + value);
      }
      return value;
    }

    /** The admin: its sampling starts now. */
    public Admin build() {
      return new Admin(this);
    }
  }
}
