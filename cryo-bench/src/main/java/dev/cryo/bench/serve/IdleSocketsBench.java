package dev.cryo.bench.serve;

import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.MoveOutcome;
import dev.cryo.commander.RunListener;
import dev.cryo.commander.Status;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Idle page sockets held by cryo's front, and hibernation: {@code USERS} demo users, each with a
 * page ({@code NOTES} 500-character notes and a click) and an open WebSocket bound to it, held by a client
 * process of their own ({@link IdleSocketClients}); then every user is frozen (moved: frozen on
 * his worker, woken elsewhere only by his next request) while the sockets stay open; then a ping
 * over every socket. Measured in the same run:
 * <ul>
 *   <li>the floor: a bare Jetty WebSocket server ({@link BareSocketServer}) in this JVM holding
 *       as many idle sockets — heap (after a full GC) and native memory (the resident set less
 *       the heap committed; the kernel's socket buffers are in neither) per socket;
 *   <li>cryo's front in this JVM holding them, each with its channel open — the same;
 *   <li>each worker's heap after a full GC ({@code jcmd PID GC.run}, then {@code GC.heap_info}):
 *       at the baseline (after a warm-up of {@value #WARM} users, frozen), with the users awake,
 *       and with all of them frozen;
 *   <li>the pings: every socket answered, by the front, with nobody woken (the commander's events
 *       counted) and every socket still open.
 * </ul>
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.IdleSocketsBench [USERS] [NOTES]
 * </pre>
 *
 * Defaults: 10,000 users, 2 notes each. Each idle socket holds a descriptor at each end (here and in the client
 * process): the open-files soft limit ({@code ulimit -n}) must exceed {@code USERS} by some
 * hundreds in both, or the run refuses to start and says so.
 */
public final class IdleSocketsBench {

  /** Users made, given a socket and frozen before the baseline: every code path is warm. */
  static final int WARM = 20;
  private static final int MAKERS = 8;
  private static final int SPARE_DESCRIPTORS = 512;
  private static final Pattern COOKIE = Pattern.compile("cryo_connection=([^;]+)");
  private static final Pattern FIELD = Pattern.compile("\"(page|user)\"\\s*:\\s*\"([^\"]+)\"");
  private static final Pattern USED = Pattern.compile("used (\\d+)K");
  private static final String NOTE = "n".repeat(DemoApplication.MAX_NOTE_LENGTH);

  /** One worker's heap after a full GC, in bytes: at the baseline, awake, and frozen. */
  public record WorkerHeap(String worker, long baseline, long awake, long frozen) {}

  /**
   * What one run measured.
   *
   * @param users the idle sockets (one per user) of each side
   * @param floorHeap the floor's heap growth for them, bytes (after a full GC)
   * @param floorNative the floor's native memory growth for them (resident set less heap
   *     committed), bytes
   * @param frontHeap cryo's front's heap growth for them, bytes (after a full GC)
   * @param frontNative cryo's front's native memory growth for them, bytes
   * @param workers each worker's heap
   * @param pongs the pings answered, of {@code users}
   * @param wakes users woken between the freezes' end and the pings' end
   * @param usersFrozen the users frozen after the pings (the warm-up's included)
   * @param usersPlaced the users placed on a worker after the pings
   * @param frontSockets the page sockets open on the front after the pings (the warm-up's too)
   * @param clientClosed the sockets the client saw closed by the front, all along
   */
  public record Result(int users, long floorHeap, long floorNative, long frontHeap,
      long frontNative,
      List<WorkerHeap> workers, long pongs, long wakes, int usersFrozen, int usersPlaced,
      int frontSockets, int clientClosed) {}

  private IdleSocketsBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int notes = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    Result result = run(users, notes, System.out::println);
    boolean pinned = ManagementFactory.getRuntimeMXBean().getInputArguments()
        .contains("-XX:+AlwaysPreTouch");
    System.out.printf("floor, a bare Jetty WebSocket server: %,d B heap, %s native per idle"
        + " socket%n", result.floorHeap() / users, perSocket(pinned, result.floorNative(), users));
    System.out.printf("cryo's front, channel bound:          %,d B heap, %s native per idle"
        + " socket (heap x%.2f the floor's)%n", result.frontHeap() / users,
        perSocket(pinned, result.frontNative(), users),
        (double) result.frontHeap() / Math.max(1, result.floorHeap()));
    for (WorkerHeap worker : result.workers()) {
      System.out.printf("worker %s heap after a full GC: baseline %.1f MiB, %,d users awake"
          + " %.1f MiB, all frozen %.1f MiB%n", worker.worker(), worker.baseline() / 1048576.0,
          users, worker.awake() / 1048576.0, worker.frozen() / 1048576.0);
    }
    System.out.printf("with every user frozen: %,d of %,d pings answered, %d users woken,"
        + " %,d frozen, %d placed, %,d sockets open on the front, %d closed%n", result.pongs(),
        users, result.wakes(), result.usersFrozen(), result.usersPlaced(), result.frontSockets(),
        result.clientClosed());
  }

  /**
   * Runs the benchmark with {@code users} sockets and {@code notes} notes per user, telling its
   * progress to {@code progress}. Blocks the caller for the whole run.
   *
   * @throws IllegalStateException when the open-files limit is too low for {@code users}
   */
  public static Result run(int users, int notes, Consumer<String> progress) throws Exception {
    checkDescriptors(users);
    Path home = Files.createTempDirectory("cryo-idle-sockets-bench");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).workerHeapBytes(512L * 1024 * 1024)
        .presentation(Duration.ofSeconds(60)).hold(Duration.ofSeconds(120))
        .orderTimeout(Duration.ofSeconds(30))
        .heartbeat(Duration.ofSeconds(15)) // a busy machine: a worker is not killed for a delay
        .build();
    AtomicLong wakes = new AtomicLong();
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        IdleSocketClients.Remote clients = IdleSocketClients.Remote.start();
        HttpClient http = HttpClient.newHttpClient()) {
      front.start();
      commander.addListener(new RunListener() {
        @Override
        public void event(String event, Map<String, Object> fields) {
          if (event.equals("fold") && "user_adopted".equals(fields.get("kind"))) {
            wakes.incrementAndGet();
          }
        }
      });

      long[] floor;
      try (BareSocketServer bare = new BareSocketServer()) {
        String uri = "ws://127.0.0.1:" + bare.port() + BareSocketServer.PATH;
        clients.open(repeat(uri, WARM));
        Memory before = Memory.now();
        clients.open(repeat(uri, users));
        Memory after = Memory.now();
        floor = new long[] {after.heap() - before.heap(), after.offHeap() - before.offHeap()};
        clients.pingAll(users + WARM);
        clients.closeAll();
      }
      progress.accept(String.format("floor: %,d sockets held, %,d B heap each", users,
          floor[0] / users));

      URI base = URI.create("http://127.0.0.1:" + front.port() + "/");
      String socket = "ws://127.0.0.1:" + front.port() + "/_cryo/ws";
      List<Tab> warm = makeUsers(http, base, WARM, notes);
      clients.open(warm.stream().map(tab -> tab.target(socket)).toList());
      freezeAll(commander, warm);
      Map<String, Long> baseline = workerHeaps(commander);

      long making = System.nanoTime();
      List<Tab> tabs = makeUsers(http, base, users, notes);
      progress.accept(String.format("%,d users made in %.1f s", users,
          (System.nanoTime() - making) / 1e9));
      Map<String, Long> awake = workerHeaps(commander);
      Memory before = Memory.now();
      clients.open(tabs.stream().map(tab -> tab.target(socket)).toList());
      Memory after = Memory.now();
      long freezing = System.nanoTime();
      freezeAll(commander, tabs);
      progress.accept(String.format("%,d users frozen in %.1f s, their sockets open", users,
          (System.nanoTime() - freezing) / 1e9));
      Map<String, Long> frozen = workerHeaps(commander);

      long wakesBefore = wakes.get();
      long pongs = clients.pingAll(users + WARM);
      long woken = wakes.get() - wakesBefore;
      Status status = commander.status();
      int clientClosed = clients.closedByServer();
      List<WorkerHeap> workers = new ArrayList<>();
      baseline.forEach((name, heap) -> workers.add(new WorkerHeap(name, heap,
          awake.getOrDefault(name, -1L), frozen.getOrDefault(name, -1L))));
      return new Result(users, floor[0], floor[1], after.heap() - before.heap(),
          after.offHeap() - before.offHeap(), workers, pongs - WARM, woken, status.usersFrozen(),
          status.usersPlaced(), front.sockets().open(), clientClosed);
    } finally {
      Scratch.delete(home);
    }
  }

  /** Native bytes per socket, meaningful only with the heap resident from the start. */
  private static String perSocket(boolean pinned, long bytes, int users) {
    return pinned ? String.format("%,d B", bytes / users)
        : "? B (run with -Xms=-Xmx and -XX:+AlwaysPreTouch for it)";
  }

  private static List<String> repeat(String uri, int count) {
    List<String> targets = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      targets.add(uri + " - -");
    }
    return targets;
  }

  /** One user's browser: his cookie, his page, his name. */
  private record Tab(String cookie, String page, String user) {
    String target(String socket) {
      return socket + " " + cookie + " " + page;
    }
  }

  /** {@code count} users, each a new connection with a page, {@code notes} notes and a click. */
  private static List<Tab> makeUsers(HttpClient http, URI base, int count, int notes)
      throws Exception {
    try (ExecutorService pool = Executors.newFixedThreadPool(MAKERS)) {
      List<Future<Tab>> made = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        made.add(pool.submit(() -> makeUser(http, base, notes)));
      }
      List<Tab> tabs = new ArrayList<>(count);
      for (Future<Tab> tab : made) {
        tabs.add(tab.get());
      }
      return tabs;
    }
  }

  private static Tab makeUser(HttpClient http, URI base, int notes) throws Exception {
    HttpResponse<String> opened = post(http, base, null, "/api/pages", "{}");
    Matcher cookie = COOKIE.matcher(opened.headers().firstValue("set-cookie").orElse(""));
    if (!cookie.find()) {
      throw new IOException("no cookie: " + opened.statusCode() + " " + opened.body());
    }
    String page = field(opened.body(), "page");
    for (int n = 0; n < notes; n++) {
      post(http, base, cookie.group(1), "/api/notes", "{\"page\":\"" + page + "\",\"text\":\""
          + NOTE + "\"}");
    }
    String user = field(post(http, base, cookie.group(1), "/api/counter", "{\"page\":\"" + page
        + "\"}").body(), "user");
    return new Tab(cookie.group(1), page, user);
  }

  private static String field(String body, String name) throws IOException {
    Matcher matcher = FIELD.matcher(body);
    while (matcher.find()) {
      if (matcher.group(1).equals(name)) {
        return matcher.group(2);
      }
    }
    throw new IOException("no \"" + name + "\" in " + body);
  }

  private static HttpResponse<String> post(HttpClient http, URI base, String cookie, String path,
      String body) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .header("content-type", "application/json").timeout(Duration.ofSeconds(120));
    if (cookie != null) {
      request.header("cookie", "cryo_connection=" + cookie);
    }
    HttpResponse<String> response = http.send(request.POST(BodyPublishers.ofString(body))
        .build(), BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("POST " + path + " answered " + response.statusCode() + ": "
          + response.body());
    }
    return response;
  }

  /** Freezes every user of {@code tabs} by a move: frozen on his worker, woken by nothing yet. */
  private static void freezeAll(Commander commander, List<Tab> tabs) throws Exception {
    try (ExecutorService pool = Executors.newFixedThreadPool(MAKERS)) {
      List<Future<MoveOutcome>> moves = new ArrayList<>();
      for (Tab tab : tabs) {
        moves.add(pool.submit(() -> commander.move(tab.user())));
      }
      for (Future<MoveOutcome> move : moves) {
        MoveOutcome outcome = move.get();
        if (!outcome.moved()) {
          throw new IllegalStateException("a user was not frozen: " + outcome.message());
        }
      }
    }
  }

  /** Each running worker's heap in use after a full GC, by name. */
  static Map<String, Long> workerHeaps(Commander commander) throws IOException,
      InterruptedException {
    Map<String, Long> heaps = new LinkedHashMap<>();
    for (Status.WorkerStatus worker : commander.status().workers()) {
      jcmd(worker.pid(), "GC.run");
      Matcher used = USED.matcher(jcmd(worker.pid(), "GC.heap_info"));
      if (!used.find()) {
        throw new IOException("jcmd " + worker.pid() + " GC.heap_info says no heap in use");
      }
      heaps.put(worker.name(), Long.parseLong(used.group(1)) * 1024);
    }
    return heaps;
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd")
        .toString(), Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }

  /** Refuses to start when this process may not hold {@code users} sockets more. */
  private static void checkDescriptors(int users) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
      if (line.startsWith("Max open files")) {
        String[] words = line.substring("Max open files".length()).trim().split("\\s+");
        long soft = words[0].equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(words[0]);
        if (users + SPARE_DESCRIPTORS > soft) {
          throw new IllegalStateException("the open-files soft limit is " + soft + ", too low"
              + " for " + users + " idle sockets (one descriptor each, here and in the client"
              + " process): raise it with ulimit -n " + (users + SPARE_DESCRIPTORS) + " (hard"
              + " limit " + words[1] + ") or run fewer users; nothing was started");
        }
      }
    }
  }

  /**
   * This JVM's heap in use after a full GC, its heap committed and its resident set, in bytes.
   */
  private record Memory(long heap, long committed, long rss) {

    /** The resident set beyond the heap committed: thread stacks, direct buffers, metadata. */
    long offHeap() {
      return rss - committed;
    }

    static Memory now() throws IOException {
      System.gc();
      System.gc(); // the second finds what the first's finalisation and references freed
      java.lang.management.MemoryUsage usage =
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
      long rss = -1;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
      return new Memory(usage.getUsed(), usage.getCommitted(), rss);
    }
  }
}
