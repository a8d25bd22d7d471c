package dev.cryo.worker;

import dev.cryo.app.Response;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireRefusal;
import dev.cryo.wire.WireRefusedException;
import dev.cryo.wire.protocol.AnnouncementMessage;
import dev.cryo.wire.protocol.ConnectionOrder;
import dev.cryo.wire.protocol.Dropped;
import dev.cryo.wire.protocol.FreezeResult;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.HttpResult;
import dev.cryo.wire.protocol.StaticCall;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.PhotoRequest;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.ProtocolException;
import dev.cryo.wire.protocol.QuitOrder;
import dev.cryo.wire.protocol.QuitResult;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.wire.protocol.UserOrder;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker's side of its wire: it turns the commander's calls into the worker's operations and
 * the worker's announcements into {@code announce} events.
 *
 * <p>Each inbound call runs on a virtual thread of the wire's; the announcements of a call are
 * written to the wire by the worker's announcer before the call returns (the worker waits for
 * their delivery), so on this one stream they always precede the call's reply. Thread-safe.
 */
final class WireEndpoint implements WireHandler, AnnouncementListener {

  private static final System.Logger LOG = System.getLogger(WireEndpoint.class.getName());

  /** How long an order waits for a departure before it answers that the departure failed. */
  static final Duration ORDER_WAIT = Duration.ofSeconds(30);

  /**
   * How long a quit's hurried freeze waits for that quit, sent before it on the wire, to begin on
   * its own thread; microseconds in practice.
   */
  static final Duration QUIT_BEGIN_WAIT = Duration.ofSeconds(2);

  /** How long after its quit's reply a worker waits for the commander to close the wire. */
  static final Duration QUIT_EXIT_WAIT = Duration.ofSeconds(10);

  /**
   * The most connections of one user a photo lists; past it, his first ones by id. The photo's
   * {@code connectionCount} counts them all, and the commander reads no user's connections.
   */
  static final int MAX_LISTED_CONNECTIONS = 256;
  /** What a photo's fields other than its users take at most, header of the frame included. */
  private static final int PHOTO_FIXED_BYTES = 4096;

  private final Runnable onWireLost;
  /** The most bytes a photo's users may take, by {@link #estimate}: half the frame limit. */
  private final long photoBudgetBytes;
  private volatile Worker worker;
  private volatile Wire wire;

  /** An endpoint for a wire of the default limits ({@link WireLimits#defaults()}). */
  WireEndpoint(Runnable onWireLost) {
    this(onWireLost, WireLimits.DEFAULT_MAX_FRAME_BYTES);
  }

  /**
   * An endpoint for a wire whose frames are at most {@code maxFrameBytes}: each photo it sends
   * is a page of the users that fits in one frame ({@link #photo(PhotoRequest)}).
   */
  WireEndpoint(Runnable onWireLost, int maxFrameBytes) {
    this.onWireLost = Objects.requireNonNull(onWireLost, "onWireLost");
    this.photoBudgetBytes = Math.max(1, maxFrameBytes / 2 - PHOTO_FIXED_BYTES);
  }

  /** Binds the endpoint to its worker and wire, before the wire carries its first call. */
  void bind(Worker boundWorker, Wire boundWire) {
    this.worker = Objects.requireNonNull(boundWorker);
    this.wire = Objects.requireNonNull(boundWire);
  }

  /** The worker's announcement listener: each announcement written to the wire as an event. */
  @Override
  public void announce(Announcement announcement) {
    Wire target = wire;
    if (target == null || !target.isOpen()) {
      return; // the wire is gone: the process is ending and the commander has forgotten us
    }
    target.event(Methods.ANNOUNCE, message(announcement));
  }

  /**
   * A burst of announcements written as that many events with one write ({@link Wire#events}):
   * the commander's reader wakes once for them, not once each. When one of them is too large for
   * a frame (nothing of the burst was sent then), they go one by one, so that only that one is
   * refused.
   */
  @Override
  public void announceAll(List<Announcement> burst) {
    Wire target = wire;
    if (target == null || !target.isOpen()) {
      return; // as in announce
    }
    List<byte[]> payloads = new ArrayList<>(burst.size());
    for (Announcement announcement : burst) {
      payloads.add(message(announcement));
    }
    try {
      target.events(Methods.ANNOUNCE, payloads);
    } catch (WireRefusedException e) {
      AnnouncementListener.super.announceAll(burst);
    }
  }

  private static byte[] message(Announcement announcement) {
    return ProtocolCodec.write(new AnnouncementMessage(announcement.sequence(),
        announcement.kind().code(), announcement.user(), announcement.keys(),
        announcement.detail(), announcement.generation(), announcement.request()));
  }

  @Override
  public byte[] onCall(String method, byte[] payload) throws Exception {
    try {
      return switch (method) {
        case Methods.HTTP -> ProtocolCodec.write(http(ProtocolCodec.read(payload, HttpCall.class)));
        case Methods.STATIC -> ProtocolCodec.write(
            asset(ProtocolCodec.read(payload, StaticCall.class)));
        case Methods.PING -> ProtocolCodec.write(
            photo(ProtocolCodec.read(payload, PhotoRequest.class)));
        case Methods.FREEZE_USER -> ProtocolCodec.write(
            freeze(ProtocolCodec.read(payload, UserOrder.class)));
        case Methods.DROP_USER -> ProtocolCodec.write(
            new Dropped(dropUser(ProtocolCodec.read(payload, UserOrder.class))));
        case Methods.DROP_CONNECTION -> ProtocolCodec.write(
            new Dropped(dropConnection(ProtocolCodec.read(payload, ConnectionOrder.class))));
        case Methods.QUIT -> ProtocolCodec.write(
            quit(ProtocolCodec.read(payload, QuitOrder.class)));
        default -> throw new WireRefusal(RefusalReason.BAD_REQUEST.code(), "no such call on a worker: " + method);
      };
    } catch (ProtocolException e) {
      throw new WireRefusal(RefusalReason.BAD_REQUEST.code(), e.getMessage());
    } catch (WorkerException e) {
      throw refusal(e);
    }
  }

  @Override
  public void onEvent(String method, byte[] payload) {
    // A worker accepts no events; the wire refuses unknown methods before they reach here.
  }

  @Override
  public void onClosed(String reason) {
    LOG.log(Level.INFO, "the wire of worker " + (worker == null ? "?" : worker.name())
        + " ended (" + reason + "): it freezes its users and exits");
    onWireLost.run();
  }

  /**
   * Serves an HTTP call through the worker's application host: the wire's call goes to it as it
   * is, and becomes the application's request there, once.
   */
  private HttpResult http(HttpCall request) {
    Response reply = worker.application().serve(worker, request);
    List<List<String>> headers = new ArrayList<>(reply.headers().size());
    for (Map.Entry<String, String> header : reply.headers()) {
      headers.add(List.of(header.getKey(), header.getValue()));
    }
    String owner = worker.registry().connectionItems().get(request.connection())
        .map(connection -> connection.user()).orElse(null);
    return new HttpResult(reply.status(), headers, reply.body(), owner,
        worker.announcementWatermark());
  }

  /**
   * Serves a request for a static file through the application host, for no user: no request
   * slot is opened, no announcement is caused.
   */
  private HttpResult asset(StaticCall request) {
    Response reply = worker.application().serveStatic(request);
    List<List<String>> headers = new ArrayList<>(reply.headers().size());
    for (Map.Entry<String, String> header : reply.headers()) {
      headers.add(List.of(header.getKey(), header.getValue()));
    }
    return new HttpResult(reply.status(), headers, reply.body(), null,
        worker.announcementWatermark());
  }

  private FreezeResult freeze(UserOrder order) throws InterruptedException {
    String user = order.user();
    if (order.ofQuit() && !worker.awaitQuit(QUIT_BEGIN_WAIT)) {
      LOG.log(Level.WARNING, "a quit's freeze of '" + user + "' came, but no quit began within "
          + QUIT_BEGIN_WAIT.toMillis() + " ms; he is frozen as an order of his own");
    }
    try {
      FreezeOutcome outcome = worker.freezeUser(user, order.generation()).get(ORDER_WAIT.toMillis(),
          TimeUnit.MILLISECONDS);
      return switch (outcome) {
        case FROZEN -> new FreezeResult(FreezeResult.FROZEN, user + " is in the freezer");
        case DROPPED -> new FreezeResult(FreezeResult.DROPPED, user + " expired and was dropped");
        case NOT_HOSTED -> new FreezeResult(FreezeResult.NOT_HERE, user + " is not here");
      };
    } catch (ExecutionException e) {
      return new FreezeResult(FreezeResult.FAILED, String.valueOf(Worker.unwrap(e).getMessage()));
    } catch (TimeoutException e) {
      return new FreezeResult(FreezeResult.FAILED, "the freeze of " + user + " did not end within "
          + ORDER_WAIT.toSeconds() + " s; he stays where he is until it does");
    }
  }

  private boolean dropUser(UserOrder order) {
    return order.generation() == null ? worker.dropUser(order.user())
        : worker.dropUser(order.user(), order.generation());
  }

  private boolean dropConnection(ConnectionOrder order) {
    if (worker.registry().connectionItems().get(order.connection()).isEmpty()) {
      return false;
    }
    worker.dropConnection(order.connection());
    return true;
  }

  private QuitResult quit(QuitOrder order) {
    QuitReport report = worker.quit(worker.freezer(),
        order.gateMillis() == null ? null : Duration.ofMillis(order.gateMillis()),
        order.graceMillis() == null ? null : Duration.ofMillis(order.graceMillis())).join();
    stopApplication(); // its users are frozen: the application closes what it opened
    long[] groups = worker.durableGroups();
    if (groups[0] > 0) {
      LOG.log(Level.INFO, "worker " + worker.name() + " forced " + groups[1] + " durable"
          + " checkpoints in " + groups[0] + " groups (" + String.format(java.util.Locale.ROOT,
          "%.1f", groups[1] / (double) groups[0]) + " a group)");
    }
    // The commander closes the wire once it has the reply, and the end of the wire ends the
    // process; should it not, the process ends by itself a little later.
    Thread.ofVirtual().start(() -> {
      try {
        Thread.sleep(QUIT_EXIT_WAIT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      onWireLost.run();
    });
    return new QuitResult(report.frozen(), report.dropped(), report.failed(), report.cut());
  }

  /** The longest the application's {@code onStop} may delay a quit's reply. */
  static final Duration STOP_WAIT = Duration.ofSeconds(5);

  /**
   * Runs the application's {@code onStop} ({@link AppHost#stop}) on a thread of its own, waiting
   * {@link #STOP_WAIT} at most: a hook that hangs does not hold the quit's reply (logged).
   */
  private void stopApplication() {
    Thread stopping = Thread.ofVirtual().name("cryo-app-stop").start(
        () -> worker.application().stop());
    try {
      if (!stopping.join(STOP_WAIT)) {
        LOG.log(Level.WARNING, "the application's onStop did not return within "
            + STOP_WAIT.toSeconds() + " s; worker " + worker.name() + " quits without waiting");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The first page of the worker's photo as the wire carries it (its presentation's). */
  PhotoMessage photo() {
    return photo(PhotoRequest.FIRST);
  }

  /**
   * One page of the worker's photo as the wire carries it: the counts and memory of the whole
   * worker, and the users whose names sort after {@code request.after()}, in name order, as many
   * as fit in half a frame (at least one): the photo fits a frame at any user count. Its range
   * ({@link PhotoMessage#usersAfter()}, {@link PhotoMessage#usersThrough()}) says which users it
   * speaks of: every user held in it is listed. A user with more than
   * {@link #MAX_LISTED_CONNECTIONS} connections has only his first ones, by id, listed.
   */
  PhotoMessage photo(PhotoRequest request) {
    Photo photo = worker.photo();
    NavigableMap<String, Photo.UserPhoto> sorted = new TreeMap<>(photo.users());
    if (request.after() != null) {
      sorted = sorted.tailMap(request.after(), false);
    }
    Map<String, PhotoMessage.UserEntry> users = new HashMap<>();
    long left = photoBudgetBytes;
    String last = null;
    String through = null; // null: the page reaches the last user
    for (Map.Entry<String, Photo.UserPhoto> user : sorted.entrySet()) {
      Photo.UserPhoto entry = user.getValue();
      Map<String, Integer> connections = listed(entry.connections());
      long bytes = estimate(user.getKey(), connections);
      if (last != null && bytes > left) {
        through = last;
        break;
      }
      left -= bytes;
      last = user.getKey();
      users.put(user.getKey(), new PhotoMessage.UserEntry(entry.state().code(), connections,
          entry.pendingCalls(), millis(entry.lastRpc()), millis(entry.lastUser()),
          entry.transferFlag() == null ? null : entry.transferFlag().name().toLowerCase(),
          entry.generation()));
    }
    return new PhotoMessage(photo.pid(), photo.name(), photo.group(), photo.state().code(),
        photo.watermark(), photo.takenAt().toEpochMilli(), photo.residentBytes(),
        photo.heapUsedBytes(), photo.heapMaxBytes(), photo.userCount(),
        photo.connectionCount(), photo.pageCount(), photo.pendingCallCount(),
        photo.servedCallCount(), photo.freezeFailures(), users, request.after(), through,
        photo.ignoredStateFields(), worker.application().appMeters());
  }

  /** A user's connections as a photo lists them: all, or the first by id past the bound. */
  private static Map<String, Integer> listed(Map<String, Integer> connections) {
    if (connections.size() <= MAX_LISTED_CONNECTIONS) {
      return connections;
    }
    Map<String, Integer> first = new HashMap<>();
    for (Map.Entry<String, Integer> connection : new TreeMap<>(connections).entrySet()) {
      if (first.size() == MAX_LISTED_CONNECTIONS) {
        break;
      }
      first.put(connection.getKey(), connection.getValue());
    }
    return first;
  }

  /**
   * The most bytes a user's entry takes in a photo's compact JSON: six bytes a character of a
   * name (a control character escaped in six; any other takes at most three in
   * UTF-8), and room for the longest numbers, state and flag.
   */
  static long estimate(String user, Map<String, Integer> connections) {
    long bytes = 200 + 6L * user.length();
    for (String connection : connections.keySet()) {
      bytes += 16 + 6L * connection.length();
    }
    return bytes;
  }

  private static long millis(Instant instant) {
    return instant == null ? 0 : instant.toEpochMilli();
  }

  /**
   * The wire's refusal for a worker's refusal: its code, {@link RefusalReason#code()}, tells the
   * commander what to do.
   */
  static WireRefusal refusal(WorkerException e) {
    return new WireRefusal(e.reason().code(), e.getMessage());
  }
}
