package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireRefusal;
import dev.cryo.wire.protocol.AnnouncementMessage;
import dev.cryo.wire.protocol.FreezeResult;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.HttpResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.RefusalReason;
import dev.cryo.wire.protocol.SpawnPayload;
import dev.cryo.wire.protocol.UserOrder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for the commander's tests of what the real worker cannot be made to do on purpose
 * (hang before its presentation, fall mute, present itself under another name, skew its
 * watermark, hang a call or a freeze): it speaks the protocol over the real wire and keeps, per
 * user, one counter that it freezes into the real freezer and wakes from it. {@link RealWorkerTest}
 * runs the real worker.
 *
 * <p>Its requests: {@code GET /counter} adds one to the user's counter and answers
 * {@code user=U counter=N worker=W}; {@code POST /api/move} (its move route) answers
 * {@code moved from=A to=B worker=W} or {@code refused=REASON worker=W}; {@code GET /hang} prints
 * {@code hanging} and never answers. A new connection is a guest
 * {@code guest_<connection>}.
 *
 * <p>Behaviours for tests, as system properties: {@code cryo.fake.hangWhile=FILE} connects but
 * never presents itself while FILE exists; {@code cryo.fake.mute=true}
 * answers no ping; {@code cryo.fake.freeze=hang} never answers a freeze order;
 * {@code cryo.fake.name=NAME} presents itself under another name than it was spawned with;
 * {@code cryo.fake.skew=N} claims N announcements more in its replies' watermark than it sent;
 * {@code cryo.fake.child=true} starts a {@code sleep} in its process group and prints its pid;
 * {@code cryo.fake.freezeGate=DIR} makes a freeze order create {@code DIR/ordered}, wait while
 * {@code DIR/before} exists, freeze and announce {@code user_frozen}, then wait while
 * {@code DIR/after} exists before it answers (the announcement goes out, the reply is late);
 * {@code cryo.fake.deaf=NAME} makes the worker spawned as NAME, once presented, send an
 * announcement of a kind the commander skips every 100 ms while it serves its first ping on the
 * thread that reads its wire and never returns from it: from then on it reads nothing, yet its
 * frames keep coming; {@code cryo.fake.refuse=CODE} refuses every {@code http} call with the refusal
 * code CODE; {@code cryo.fake.unreadable=true} answers every call that would wake a user as the
 * worker's application host answers state it cannot read (a 503 naming
 * {@code Cryo-Reason: unreadable_parcel}), waking nobody; {@code cryo.fake.pingError=NAME} makes the
 * worker spawned as NAME answer every ping with an error reply, as a worker whose photo outgrew
 * the frame limit did, and print {@code ping refused N} for the N-th; it sends nothing else.
 */
public final class FakeWorkerMain implements WireHandler {

  private final SpawnPayload spawn;
  private final Freezer freezer;
  private final boolean mute = Boolean.getBoolean("cryo.fake.mute");
  private final boolean freezeHangs = "hang".equals(System.getProperty("cryo.fake.freeze"));
  private final boolean deaf;
  private final boolean pingError;
  private long pingsRefused; // guarded by this
  private final Map<String, Long> counters = new HashMap<>(); // guarded by this
  private final Map<String, String> connections = new HashMap<>(); // guarded by this
  private final CountDownLatch ended = new CountDownLatch(1);
  private long sequence; // guarded by this
  private volatile Wire wire;

  private FakeWorkerMain(SpawnPayload spawn) throws IOException {
    this.spawn = spawn;
    this.deaf = spawn.name().equals(System.getProperty("cryo.fake.deaf"));
    this.pingError = spawn.name().equals(System.getProperty("cryo.fake.pingError"));
    this.freezer = new Freezer(Path.of(spawn.freezer()));
  }

  /** The entry point: reads the spawn payload, connects, presents itself, serves until the wire ends. */
  public static void main(String[] args) throws Exception {
    SpawnPayload spawn = ProtocolCodec.read(System.getenv(SpawnPayload.ENVIRONMENT)
        .getBytes(StandardCharsets.UTF_8), SpawnPayload.class);
    FakeWorkerMain worker = new FakeWorkerMain(spawn);
    java.nio.channels.SocketChannel channel = Wire.connect(Path.of(spawn.wire()));
    worker.wire = Wire.open(channel, spawn.name(), worker,
        Methods.WORKER_CALLS, Methods.WORKER_EVENTS, WireLimits.defaults());
    if (Boolean.getBoolean("cryo.fake.child")) { // a process of its group, for the group's kill
      Process child = new ProcessBuilder("sleep", "600").start();
      System.out.println("child " + child.pid());
      System.out.flush();
    }
    if (!worker.mayPresent()) {
      Thread.sleep(Long.MAX_VALUE); // never presents: the commander kills the group
    }
    ProcessHandle self = ProcessHandle.current();
    long started = self.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
    String name = System.getProperty("cryo.fake.name", spawn.name());
    Presentation presentation = new Presentation(name, spawn.group(), self.pid(), started,
        spawn, worker.photo(), List.of(List.of("POST", "/api/move")));
    worker.wire.call(Methods.PRESENT, ProtocolCodec.write(presentation),
        java.time.Duration.ofSeconds(10)).get();
    if (Boolean.getBoolean("cryo.fake.fuzz") && !spawn.name().endsWith("_0001")) {
      hostile(channel, spawn.name());
    }
    if (worker.deaf) {
      Thread.ofPlatform().daemon().name("keeps-sending").start(worker::keepSending);
    }
    worker.ended.await();
    System.exit(0);
  }

  /**
   * With {@code cryo.fake.fuzz=true}, every worker but the first turns hostile once presented: it
   * writes, behind its wire's back, one kind of bad input chosen by its name's number — random
   * bytes, a bad magic, a bad version, a length past the limits, a header that is not JSON, a
   * truncated frame, an unknown method, a reply to an id never asked — each seeded by its name.
   */
  private static void hostile(java.nio.channels.SocketChannel channel, String name)
      throws Exception {
    int number = Integer.parseInt(name.substring(name.lastIndexOf('_') + 1));
    java.util.Random random = new java.util.Random(number * 7919L);
    Thread.sleep(300); // the commander is serving the other worker meanwhile
    byte[] header;
    byte[] bytes = switch (number % 8) {
      case 0 -> {
        byte[] noise = new byte[1 + random.nextInt(4096)];
        random.nextBytes(noise);
        yield noise;
      }
      case 1 -> frame("XXXX".getBytes(StandardCharsets.US_ASCII), 1, 4, "{}", 0);
      case 2 -> frame("CRYW".getBytes(StandardCharsets.US_ASCII), 99, 4, "{}", 0);
      case 3 -> {
        java.nio.ByteBuffer big = java.nio.ByteBuffer.allocate(14);
        big.put("CRYW".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 4)
            .putInt(0x7fff_ffff).putInt(0x7fff_ffff);
        yield big.array();
      }
      case 4 -> frame("CRYW".getBytes(StandardCharsets.US_ASCII), 1, 4, "{not json", 0);
      case 5 -> java.util.Arrays.copyOf(frame("CRYW".getBytes(StandardCharsets.US_ASCII), 1, 4,
          "{\"id\":1,\"method\":\"announce\"}", 64), 20);
      case 6 -> frame("CRYW".getBytes(StandardCharsets.US_ASCII), 1, 4,
          "{\"method\":\"format_disk\"}", 0);
      default -> frame("CRYW".getBytes(StandardCharsets.US_ASCII), 1, 2,
          "{\"id\":987654321,\"method\":\"locate\"}", 0);
    };
    header = bytes;
    channel.write(java.nio.ByteBuffer.wrap(header));
    if (number % 8 == 5) {
      channel.shutdownOutput(); // the truncated frame ends the stream
    }
    System.out.println("hostile " + (number % 8));
    System.out.flush();
  }

  /** A frame with the given prelude fields, JSON header and a payload of {@code payload} zeros. */
  private static byte[] frame(byte[] magic, int version, int kind, String json, int payload) {
    byte[] text = json.getBytes(StandardCharsets.UTF_8);
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(14 + text.length + payload);
    buffer.put(magic).put((byte) version).put((byte) kind).putInt(text.length).putInt(payload)
        .put(text);
    return buffer.array();
  }

  /** False while the file named by {@code cryo.fake.hangWhile} exists: then it never presents. */
  private boolean mayPresent() {
    String flag = System.getProperty("cryo.fake.hangWhile");
    return flag == null || !Files.exists(Path.of(flag));
  }

  /** A deaf worker's frames: an announcement the commander skips, every 100 ms until the end. */
  private void keepSending() {
    try {
      for (long n = 1; ended.getCount() > 0; n++) {
        wire.event(Methods.ANNOUNCE, ProtocolCodec.write(new AnnouncementMessage(n,
            "still_sending", "nobody", List.of(), null, 0)));
        Thread.sleep(100);
      }
    } catch (InterruptedException | RuntimeException e) {
      // the wire ended (the commander killed this process): nothing more to send
    }
  }

  @Override
  public boolean servesInline(String method) {
    return deaf && Methods.PING.equals(method); // its reader then stops in the ping, for good
  }

  @Override
  public byte[] onCall(String method, byte[] payload) throws Exception {
    return switch (method) {
      case Methods.PING -> {
        if (mute || deaf) {
          Thread.sleep(Long.MAX_VALUE);
        }
        if (pingError) {
          refusePing();
        }
        yield ProtocolCodec.write(photo());
      }
      case Methods.HTTP -> {
        HttpCall call = ProtocolCodec.read(payload, HttpCall.class);
        if (call.path().equals("/hang")) {
          System.out.println("hanging");
          System.out.flush();
          Thread.sleep(Long.MAX_VALUE);
        }
        yield ProtocolCodec.write(http(call));
      }
      case Methods.FREEZE_USER -> {
        if (freezeHangs) {
          Thread.sleep(Long.MAX_VALUE);
        }
        String gate = System.getProperty("cryo.fake.freezeGate");
        if (gate != null) { // outside the worker's lock: its other calls go on meanwhile
          Files.write(Path.of(gate, "ordered"), new byte[0]);
          awaitGone(Path.of(gate, "before"));
        }
        FreezeResult result = freeze(ProtocolCodec.read(payload, UserOrder.class).user());
        if (gate != null) {
          awaitGone(Path.of(gate, "after"));
        }
        yield ProtocolCodec.write(result);
      }
      default -> throw new WireRefusal(RefusalReason.BAD_REQUEST.code(),
          "the fake serves no " + method);
    };
  }

  /** Answers a ping with an error reply, as the wire does for a reply too large for a frame. */
  private synchronized void refusePing() {
    pingsRefused++;
    System.out.println("ping refused " + pingsRefused);
    System.out.flush();
    throw new WireRefusal("internal", "the fake answers every ping with an error");
  }

  /** Waits, polling, while {@code file} exists: a gate a test opens from another process. */
  private static void awaitGone(Path file) throws InterruptedException {
    while (Files.exists(file)) {
      Thread.sleep(10);
    }
  }

  private synchronized HttpResult http(HttpCall call) throws IOException {
    String refusal = System.getProperty("cryo.fake.refuse");
    if (refusal != null) {
      throw new WireRefusal(refusal, "the fake refuses every call with " + refusal);
    }
    String user = call.user();
    if (user == null) {
      user = connections.get(call.connection());
      if (user == null) {
        user = "guest_" + call.connection();
        counters.put(user, 0L);
        connections.put(call.connection(), user);
        announce("new_user", user, List.of(user));
        announce("new_connection", user, List.of(call.connection()));
      }
    } else if (!counters.containsKey(user)) {
      if (call.grant().kind() == dev.cryo.wire.protocol.Grant.Kind.WAKE
          && Boolean.getBoolean("cryo.fake.unreadable")) {
        return new HttpResult(503, List.of(List.of("Content-Type", "application/json"),
            List.of("Retry-After", "60"),
            List.of("Cryo-Reason", RefusalReason.UNREADABLE_PARCEL.code())),
            "{\"error\":\"unreadable_parcel\"}".getBytes(StandardCharsets.UTF_8), null,
            sequence);
      }
      if (call.grant().kind() != dev.cryo.wire.protocol.Grant.Kind.WAKE) {
        throw new WireRefusal(RefusalReason.USER_LEFT_FROZEN.code(), "'" + user + "' is not here");
      }
      wake(user, call.connection());
    }
    String body;
    if (call.path().equals("/api/move")) {
      body = call.move() == null ? "no move" : call.move().refused() == null
          ? "moved from=" + call.move().from() + " to=" + call.move().to()
          : "refused=" + call.move().refused();
    } else {
      long counter = counters.merge(user, 1L, Long::sum);
      body = "user=" + user + " counter=" + counter;
    }
    body += " worker=" + spawn.name();
    return new HttpResult(200, List.of(List.of("Content-Type", "text/plain")),
        body.getBytes(StandardCharsets.UTF_8), user, sequence + Long.getLong("cryo.fake.skew", 0));
  }

  private void wake(String user, String connection) throws IOException {
    if (!freezer.tryTakeSemaphore(user, spawn.name())) {
      throw new WireRefusal(RefusalReason.SEMAPHORE_TIMEOUT.code(),
          "the semaphore of '" + user + "' is taken");
    }
    try {
      Object parcel = freezer.readUserParcel(user).orElse(null);
      if (parcel == null) {
        throw new WireRefusal(RefusalReason.NO_PARCEL.code(), "no parcel for '" + user + "'");
      }
      freezer.dropUserParcel(user);
      counters.put(user, ((Number) ((Map<?, ?>) parcel).get("counter")).longValue());
      connections.put(connection, user);
      announce("new_user", user, List.of(user));
      announce("new_connection", user, List.of(connection));
      announce("user_adopted", user, List.of(user));
    } finally {
      freezer.releaseSemaphore(user, spawn.name());
    }
  }

  private synchronized FreezeResult freeze(String user) throws IOException {
    Long counter = counters.get(user);
    if (counter == null) {
      return new FreezeResult(FreezeResult.NOT_HERE, "'" + user + "' is not on " + spawn.name());
    }
    if (!freezer.tryTakeSemaphore(user, spawn.name())) {
      return new FreezeResult(FreezeResult.FAILED, "the semaphore is taken");
    }
    try {
      freezer.writeUserParcel(user, Map.of("counter", counter), spawn.name(), "freeze",
          spawn.group());
    } finally {
      freezer.releaseSemaphore(user, spawn.name());
    }
    counters.remove(user);
    connections.values().removeIf(user::equals);
    announce("user_frozen", user, List.of(user));
    return new FreezeResult(FreezeResult.FROZEN, "frozen");
  }

  private void announce(String kind, String user, List<String> keys) {
    sequence++;
    wire.event(Methods.ANNOUNCE, ProtocolCodec.write(new AnnouncementMessage(sequence, kind, user,
        keys, null, 0)));
  }

  private synchronized PhotoMessage photo() {
    Runtime runtime = Runtime.getRuntime();
    return new PhotoMessage(ProcessHandle.current().pid(), spawn.name(), spawn.group(),
        PhotoMessage.RUNNING, sequence, System.currentTimeMillis(), -1,
        runtime.totalMemory() - runtime.freeMemory(), runtime.maxMemory(), counters.size(),
        connections.size(), 0, 0, 0, 0, Map.of());
  }

  @Override
  public void onEvent(String method, byte[] payload) {
  }

  @Override
  public void onClosed(String reason) {
    ended.countDown(); // the commander is gone: exit without writing anything
  }
}
