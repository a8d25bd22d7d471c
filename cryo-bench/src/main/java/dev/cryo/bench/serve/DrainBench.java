package dev.cryo.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.cryo.bench.Scratch;
import dev.cryo.bench.ThreadTimes;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.DrainReport;
import dev.cryo.commander.EventLogFiles;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import dev.cryo.demo.DemoApplication;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The drain of a run and its restart, through the commander (no HTTP front: the figures are the
 * commander's and its workers'): {@code USERS} demo users with realistic state — each logged in on
 * two connections with five pages each, counted once each — are drained ({@link Commander#drain}:
 * every worker quits into the freezer, the item written, the root renamed); then a new commander
 * starts on the same run directory, adopts the reboot data, and serves its first request (a wake);
 * then {@code WAKES} more users wake one after another, each timed.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.DrainBench [USERS] [WAKES]
 * </pre>
 *
 * Defaults: 10,000 users, 500 wakes. The drain begins at least 35 s after the run began
 * ({@code -Dcryo.bench.drainSettleSeconds=S}, 0 for at once): files removed before the run (a run
 * just before it removes its users' folders) are then more than 30 s old, as a drain after live
 * serving finds them. Prints the drain's time to exit (the call's return, which
 * includes the close) and its steps by the event log (to the first freeze folded; the freezes
 * folded, from the first to the last; then the quits' reports, the workers' ends, and the commit:
 * the item written, the root forced to disk, renamed, the rename forced), the freezes folded in
 * each second of the drain (a stall shows as a slow second between fast ones), each process's
 * processor time over the drain by group of threads with the kernel's share and the time spent
 * waiting for a processor ({@link #processorTime}), the restart to the first request served, and
 * the wakes' latencies. The run directory is made in block groups of its own ({@link #home}:
 * {@code -Dcryo.bench.drainArea=tmp} for the temporary directory itself), since ext4 without a
 * journal, as here, skips at each inode it allocates every inode of that block group freed in the
 * last 60 s, 360 s while its inode table block is dirty: the last run's removal of its users'
 * folders would otherwise cost this drain's freezes for minutes, the 35 s pause notwithstanding.
 */
public final class DrainBench {

  private static final Pattern PAGE = Pattern.compile("\"page\"\\s*:\\s*\"([^\"]+)\"");
  private static final int PAGES_PER_CONNECTION = 5;
  private static final int MAKERS = 8;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The system property naming how long after the run's start the drain may begin, in seconds. */
  static final String SETTLE_PROPERTY = "cryo.bench.drainSettleSeconds";
  private static final long SETTLE_SECONDS = 35;
  /** The system property naming where the run directory is made: {@code fresh} or {@code tmp}. */
  static final String AREA_PROPERTY = "cryo.bench.drainArea";

  private DrainBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int wakes = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    long runBegun = System.nanoTime();
    Path area = Files.createTempDirectory("cryo-drain-bench");
    Path home = home(area);
    try {
      CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
          .workers(2).maxWorkers(2).hold(Duration.ofSeconds(60)).build();
      List<String[]> tabs = new ArrayList<>(); // {connection, page}
      DrainReport report;
      long drained;
      String cpu;
      try (Commander commander = Commander.start(config)) {
        long making = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(MAKERS)) {
          List<Future<String[]>> made = new ArrayList<>();
          for (int i = 0; i < users; i++) {
            int n = i;
            made.add(pool.submit(() -> user(commander, n)));
          }
          for (Future<String[]> tab : made) {
            tabs.add(tab.get());
          }
        }
        System.out.printf("%,d users made (2 connections, %d pages each) in %.1f s: %s%n", users,
            PAGES_PER_CONNECTION, (System.nanoTime() - making) / 1e9, commander.status()
                .workers().stream().map(w -> w.name() + " " + w.users()).toList());
        settle(runBegun);
        List<Long> pids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        names.add("commander (this JVM)");
        commander.status().workers().forEach(worker -> {
          pids.add(worker.pid());
          names.add("worker " + worker.name() + " (" + worker.users() + " users)");
        });
        List<Map<String, long[]>> before = new ArrayList<>();
        List<Map<String, long[]>> latest = new ArrayList<>();
        for (long pid : pids) {
          before.add(ThreadTimes.of(pid));
          latest.add(Map.of());
        }
        long begun = System.nanoTime();
        report = commander.drain(Duration.ofSeconds(5), line -> {
          System.out.println("  " + line);
          for (int i = 1; i < pids.size(); i++) { // a worker's counts end with it: keep the
            Map<String, long[]> now = ThreadTimes.of(pids.get(i)); // largest, not a dying one's
            if (ThreadTimes.total(now)[ThreadTimes.RUN]
                >= ThreadTimes.total(latest.get(i))[ThreadTimes.RUN]) {
              latest.set(i, now);
            }
          }
        });
        drained = System.nanoTime() - begun;
        latest.set(0, ThreadTimes.of(pids.get(0)));
        cpu = processorTime(names, before, latest);
      }
      System.out.printf("drain of %,d users: %.2f s to exit (%s)%n", users, drained / 1e9,
          report.summary());
      System.out.println(steps(home));
      System.out.println(cpu);
      long starting = System.nanoTime();
      try (Commander next = Commander.start(config)) {
        long started = System.nanoTime() - starting;
        Reply first = state(next, tabs.get(0));
        long served = System.nanoTime() - starting;
        check(first);
        System.out.printf("restart: %.2f s to the reception, %.2f s to the first request served"
            + " (%s)%n", started / 1e9, served / 1e9, next.startLine());
        Histogram histogram = new Histogram(3);
        for (int i = 1; i <= wakes && i < tabs.size(); i++) {
          long t = System.nanoTime();
          check(state(next, tabs.get(i * (tabs.size() / (wakes + 1)))));
          histogram.recordValue((System.nanoTime() - t) / 1000);
        }
        System.out.printf("the first %d wakes, one at a time: p50 %,d us, p99 %,d us, max %,d us"
            + "%n", histogram.getTotalCount(), histogram.getValueAtPercentile(50),
            histogram.getValueAtPercentile(99), histogram.getMaxValue());
      }
    } finally {
      Scratch.delete(area);
    }
  }

  /**
   * The run directory, in {@code area} (a new directory of the machine's temporary directory).
   * With {@value #AREA_PROPERTY} {@code =fresh} (the default), {@code area} is marked as a top
   * directory ({@code chattr +T}), so that ext4 places the run directory made in it by its rule
   * for top directories (Orlov's): in a block group with few directories and more free inodes
   * than average, away from the temporary directory's own groups. Every inode a freeze creates
   * goes to the groups of its folder's parent, and ext4 without a journal skips, at every inode
   * it allocates there, each inode of that group freed in the last 60 s (360 s while its inode
   * table block is dirty); the temporary directory's groups hold what the last run removed (its
   * 10,000 users' folders, tens of thousands of inodes, a minute or two before this drain) and
   * whatever other programs removed there. A real run's drain finds what its own run freed in its
   * folders' groups, and what anything else removed there in the last minutes; a fresh area keeps
   * the drain's own removals (they count) and leaves out the last bench run's. With
   * {@code =tmp} the run directory is made in the temporary directory itself (the bench before
   * 2 Dec 2026). When {@code chattr} fails (another file system, no such program) the run
   * directory is made in {@code area} all the same, and it says so. The run directory's name is
   * drawn anew each run: ext4 starts its search for a top directory's group at a hash of the name,
   * and with one name every run would find the group the last run emptied, the best by that rule
   * once its folders are removed, and with it every inode they freed.
   */
  private static Path home(Path area) throws IOException, InterruptedException {
    return home(area, System.getProperty(AREA_PROPERTY, "fresh"));
  }

  /** As {@link #home(Path)}, with {@code wanted} in place of the property's value. */
  static Path home(Path area, String wanted) throws IOException, InterruptedException {
    if (!wanted.equals("fresh") && !wanted.equals("tmp")) {
      throw new IllegalArgumentException(AREA_PROPERTY + " is fresh or tmp, not " + wanted);
    }
    if (wanted.equals("tmp")) {
      System.out.println("run directory " + area + " (" + AREA_PROPERTY + "=tmp: in the"
          + " temporary directory's block groups)");
      return area;
    }
    String said;
    boolean marked;
    try {
      Process chattr = new ProcessBuilder("chattr", "+T", area.toString())
          .redirectErrorStream(true).start();
      said = new String(chattr.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      marked = chattr.waitFor() == 0;
    } catch (IOException e) { // no such program
      said = e.getMessage();
      marked = false;
    }
    Path home = Files.createTempDirectory(area, "run-");
    System.out.println("run directory " + home + (marked ? " (" + AREA_PROPERTY + "=fresh: its"
        + " parent marked a top directory, so ext4 placed it in block groups of its own)"
        : " (" + AREA_PROPERTY + "=fresh, but chattr +T failed: " + said + "; placed as the"
        + " temporary directory's)"));
    return home;
  }

  /**
   * Waits, before the drain, until the seconds named by {@value #SETTLE_PROPERTY} (default
   * {@value #SETTLE_SECONDS}) have passed since this run began. The freezer root is on the
   * machine's file system, and ext4 without a journal skips, at every inode it allocates, the
   * inodes freed in the last 30 s: a run that follows another within seconds drains right after
   * that run's removal of its 10,000 users' folders, and pays for them in every file its freezes
   * create. A drain of a real run follows live serving, not a mass removal; the drain's own
   * removals still count. Set the
   * property to 0 to drain as soon as the users are made.
   */
  private static void settle(long runBegun) throws InterruptedException {
    long settleNanos = Duration.ofSeconds(Long.getLong(SETTLE_PROPERTY, SETTLE_SECONDS)).toNanos();
    long left = settleNanos - (System.nanoTime() - runBegun);
    if (left > 0) {
      System.out.printf("waiting %.1f s before the drain, so that it begins %d s after this run"
          + " began (%s): files removed before the run are more than 30 s old%n", left / 1e9,
          settleNanos / 1_000_000_000L, SETTLE_PROPERTY);
      Thread.sleep(Duration.ofNanos(left));
    }
  }

  /**
   * The drain's steps by the event log's timestamps: from the drain's start to the first freeze
   * folded, the freezes folded (first to last), the last freeze to the last quit's report
   * ({@code quit_ended}), the report to the last quit worker's end ({@code worker_died}), and that
   * end to the commit (the journal's last batch, the item written, the root forced to disk,
   * renamed, the rename forced).
   */
  private static String steps(Path home) throws IOException {
    Instant begun = null;
    Instant first = null;
    Instant last = null;
    Instant reported = null;
    Instant retired = null;
    Instant committed = null;
    List<Instant> frozen = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (Path log : EventLogFiles.run(home)) { // the rotated parts, oldest first, then the live
      lines.addAll(Files.readAllLines(log));
    }
    for (String line : lines) {
      JsonNode event = JSON.readTree(line);
      String kind = event.path("event").asText();
      Instant at = Instant.parse(event.path("at").asText());
      switch (kind) {
        case "drain_begun" -> begun = at;
        case "fold" -> {
          if (begun != null && event.path("kind").asText().equals("user_frozen")) {
            first = first == null ? at : first;
            last = at;
            frozen.add(at);
          }
        }
        case "quit_ended" -> reported = at;
        case "worker_died" -> retired = begun == null ? null : at;
        case "drain_committed" -> committed = at;
        default -> { }
      }
    }
    if (begun == null || first == null || reported == null || retired == null
        || committed == null) {
      return "  (the event log lacks a step of the drain)";
    }
    return String.format("  begun -> first freeze folded %.0f ms; freezes folded over %.2f s;"
        + " last freeze -> last quit reported %.0f ms; -> last worker ended %.0f ms;"
        + " -> committed (journal, item, forces, rename) %.0f ms", millis(begun, first),
        millis(first, last) / 1e3, millis(last, reported), millis(reported, retired),
        millis(retired, committed)) + "\n" + perSecond(begun, frozen);
  }

  /**
   * Each process's processor time over the drain, by group of threads ({@link ThreadTimes}): the
   * commander from the drain's start to its return, a worker to the progress line that read the
   * most of it (it is killed once its quit is reported, its counts go with it, and a line that
   * reads it while it ends sees only the threads still there). For each process
   * its total, then the groups of at least 3 % of it: seconds on a processor, of which in the
   * kernel, and seconds runnable but waiting for a processor.
   */
  static String processorTime(List<String> names, List<Map<String, long[]>> before,
      List<Map<String, long[]>> after) {
    StringBuilder out = new StringBuilder("  processor time over the drain (s on a processor /"
        + " of it in the kernel / waiting for a processor), a worker to its last progress line:");
    for (int i = 0; i < names.size(); i++) {
      if (after.get(i).isEmpty()) {
        out.append(System.lineSeparator()).append("    ").append(names.get(i))
            .append(": not read (no progress line while it ran)");
        continue;
      }
      Map<String, long[]> spent = ThreadTimes.minus(after.get(i), before.get(i));
      long[] all = ThreadTimes.total(spent);
      if (all[ThreadTimes.RUN] < 50_000_000L) {
        continue; // an idle process: nothing to say
      }
      out.append(System.lineSeparator()).append(String.format("    %s: %.2f / %.2f / %.2f",
          names.get(i), all[ThreadTimes.RUN] / 1e9, all[ThreadTimes.SYSTEM] / 1e9,
          all[ThreadTimes.WAIT] / 1e9));
      ThreadTimes.largest(spent, all[ThreadTimes.RUN] * 3 / 100).forEach(group -> {
        long[] c = group.getValue();
        out.append(System.lineSeparator()).append(String.format(
            "      %-16s %6.2f / %6.2f / %6.2f", group.getKey(), c[ThreadTimes.RUN] / 1e9,
            c[ThreadTimes.SYSTEM] / 1e9, c[ThreadTimes.WAIT] / 1e9));
      });
    }
    return out.toString();
  }

  /**
   * The freezes folded in each second of the drain from its start, so that a slow drain shows
   * whether it was slow throughout or stalled (seconds with few freezes between fast ones).
   */
  static String perSecond(Instant begun, List<Instant> frozen) {
    List<Integer> counts = new ArrayList<>();
    for (Instant at : frozen) {
      int second = (int) Math.max(0, Duration.between(begun, at).toMillis() / 1000);
      while (counts.size() <= second) {
        counts.add(0);
      }
      counts.set(second, counts.get(second) + 1);
    }
    StringBuilder line = new StringBuilder("  freezes folded per second of the drain:");
    for (int count : counts) {
      line.append(' ').append(count);
    }
    return line.toString();
  }

  private static double millis(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e6;
  }

  /** User {@code n}: two connections, each logged in as him, with five counted pages each. */
  private static String[] user(Commander commander, int n) {
    String name = "user" + n;
    String[] first = null;
    for (int c = 0; c < 2; c++) {
      String connection = "b" + n + "-" + c;
      String page = null;
      for (int p = 0; p < PAGES_PER_CONNECTION; p++) {
        Matcher matcher = PAGE.matcher(text(check(post(commander, connection, "/api/pages",
            "{}"))));
        if (!matcher.find()) {
          throw new IllegalStateException("no page in the reply");
        }
        page = matcher.group(1);
        check(post(commander, connection, "/api/counter", "{\"page\":\"" + page + "\"}"));
      }
      check(post(commander, connection, "/api/login", "{\"user\":\"" + name + "\"}"));
      if (first == null) {
        first = new String[] {connection, page};
      }
    }
    return first;
  }

  private static Reply state(Commander commander, String[] tab) {
    return commander.serve(new Request(tab[0], "GET", "/api/state", "page=" + tab[1], List.of(),
        new byte[0]));
  }

  private static Reply post(Commander commander, String connection, String path, String body) {
    return commander.serve(new Request(connection, "POST", path, "", List.of(Map.entry(
        "Content-Type", "application/json")), body.getBytes(StandardCharsets.UTF_8)));
  }

  private static Reply check(Reply reply) {
    if (reply.status() != 200 && reply.status() != 303) {
      throw new IllegalStateException("answered " + reply.status() + ": " + reply.bodyText());
    }
    return reply;
  }

  private static String text(Reply reply) {
    return new String(reply.body(), StandardCharsets.UTF_8);
  }
}
