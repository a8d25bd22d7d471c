package dev.cryo.chaos.nemesis;

import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.load.Recorder;
import dev.cryo.chaos.load.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Injects the faults of a {@link Schedule} into a {@link Server} under a {@link Workload}, one at
 * a time, each written into the history as a {@code fault_start} and a {@code fault_end} whose
 * detail says what was done and what was seen. A fault ends once the run is back: as many workers
 * running as it was started with, or a new serve serving. A serve that died without being asked
 * to is started again (said on the console and in the fault's detail).
 */
public final class Nemesis {

  /** The shortest time a worker stays stopped: past two heartbeats of 5 s. */
  static final Duration PAUSE = Duration.ofSeconds(11);
  private static final Duration START = Duration.ofSeconds(90);
  /**
   * The longest a drain may take before the commander is killed: a drain of the workload's users
   * takes a few seconds (stragglers are cut after 5 s); one that does not end is a finding.
   */
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final Duration RECOVERY = Duration.ofSeconds(30);

  private final Server server;
  private final Workload workload;
  private final Recorder recorder;
  private final SmallDisk disk;
  private final int workers;
  private final SplittableRandom random;
  private final PrintStream console;

  /**
   * A nemesis of {@code server} (started with {@code workers} workers) under {@code workload};
   * {@code disk} is the home's own file system, or null when the disk fault cannot run.
   */
  public Nemesis(Server server, Workload workload, Recorder recorder, SmallDisk disk,
      int workers, long seed, PrintStream console) {
    this.server = server;
    this.workload = workload;
    this.recorder = recorder;
    this.disk = disk;
    this.workers = workers;
    this.random = new SplittableRandom(seed);
    this.console = console;
  }

  /**
   * Injects one fault of {@code kind}, from its start to the run's recovery; false when it cannot
   * be injected here (a full disk without a file system of the harness's own), said in the history.
   */
  public boolean inject(FaultKind kind) throws IOException, InterruptedException {
    if (kind == FaultKind.DISK_FULL && disk == null) {
      recorder.meta("disk_full skipped: the home is not on a file system of the harness's own");
      return false;
    }
    String target = target(kind);
    long id = recorder.faultStart(kind, target);
    console.printf("chaos: %s %s%n", kind.wireName(), target);
    String outcome;
    try {
      outcome = switch (kind) {
        case KILL_WORKER -> killWorker(target);
        case KILL_COMMANDER -> restartAfter(server.killCommander());
        case PAUSE_WORKER -> pauseWorker(target);
        case RELOAD -> reload();
        case DRAIN_RESTART -> restartAfter(drained(server.drain(DRAIN)));
        case DRAIN_DURING_RELOAD -> drainDuringReload();
        case MOVE_STORM -> "moved " + workload.storm(random.nextInt(Integer.MAX_VALUE),
            Duration.ofSeconds(5 + random.nextInt(6))) + " until the storm ended";
        case DISK_FULL -> diskFull();
      };
    } catch (IOException e) {
      outcome = "failed: " + e.getMessage();
    }
    if (!server.serving()) {
      outcome += "; the serve was not running afterwards: " + restartAfter("started again");
    }
    recorder.faultEnd(id, kind, outcome);
    console.printf("chaos: %s: %s%n", kind.wireName(), outcome);
    return true;
  }

  private String target(FaultKind kind) throws InterruptedException {
    if (kind == FaultKind.KILL_WORKER || kind == FaultKind.PAUSE_WORKER) {
      List<Server.Worker> running = server.running();
      if (!running.isEmpty()) {
        Server.Worker worker = running.get(random.nextInt(running.size()));
        return worker.name() + " pid " + worker.pid();
      }
      return "no worker running";
    }
    if (kind == FaultKind.KILL_COMMANDER) {
      return "commander pid " + server.commanderPid();
    }
    return "";
  }

  private static long pidOf(String target) {
    int at = target.lastIndexOf(" pid ");
    return at < 0 ? -1 : Long.parseLong(target.substring(at + 5));
  }

  private String killWorker(String target) throws IOException, InterruptedException {
    long pid = pidOf(target);
    if (pid < 0) {
      return target;
    }
    boolean sent = Server.signal(pid, "KILL");
    return (sent ? "killed" : "kill refused") + "; " + noticed(pid) + recovery();
  }

  private String pauseWorker(String target) throws IOException, InterruptedException {
    long pid = pidOf(target);
    if (pid < 0) {
      return target;
    }
    long seconds = PAUSE.toSeconds() + random.nextInt(7);
    boolean stopped = Server.signal(pid, "STOP");
    Thread.sleep(seconds * 1000);
    boolean continued = Server.signal(pid, "CONT");
    return (stopped ? "stopped " : "stop refused ") + seconds + " s, "
        + (continued ? "continued" : "gone before SIGCONT") + "; "
        + (continued ? "" : noticed(pid)) + recovery();
  }

  private String reload() throws IOException, InterruptedException {
    Server.CommandResult result = Server.result(server.startReload(Duration.ofMinutes(2)),
        Duration.ofMinutes(3));
    return "cryo reload exit " + result.exitCode() + ": " + result.output() + "; " + recovery();
  }

  /** A drain begun 0–1 s after the reload's first quit began, then a new serve. */
  private String drainDuringReload() throws IOException, InterruptedException {
    Server.EventsMark before = server.eventsMark();
    Process reload = server.startReload(Duration.ofMinutes(2));
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    boolean quitting = false;
    while (System.nanoTime() < deadline
        && !(quitting = server.eventSince(before, "quit_begun"))) {
      Thread.sleep(20);
    }
    long delay = random.nextInt(1001);
    Thread.sleep(delay);
    String drained = drained(server.drain(DRAIN));
    Server.CommandResult reloaded = Server.result(reload, Duration.ofMinutes(3));
    return restartAfter((quitting ? "drain " + delay + " ms after quit_begun: "
        : "no quit_begun within " + RECOVERY.toSeconds() + " s; drain: ") + drained
        + "; cryo reload exit " + reloaded.exitCode() + ": " + reloaded.output());
  }

  private String diskFull() throws IOException, InterruptedException {
    long bytes = disk.fill();
    long hold = 4 + random.nextInt(5);
    Thread.sleep(hold * 1000);
    disk.release();
    return "filled with " + bytes + " bytes for " + hold + " s, given back; " + recovery();
  }

  private static String drained(Server.CommandResult result) {
    return "serve exit " + result.exitCode() + ": " + result.output();
  }

  private String restartAfter(String what) throws IOException, InterruptedException {
    if (server.serving()) {
      return what;
    }
    long started = System.nanoTime();
    server.start(START);
    return what + "; served again after " + (System.nanoTime() - started) / 1_000_000 + " ms; "
        + recovery();
  }

  /** Waits until the run no longer reports worker {@code pid} running; says how long it took. */
  private String noticed(long pid) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + RECOVERY.toNanos();
    while (System.nanoTime() < deadline) {
      if (server.running().stream().noneMatch(worker -> worker.pid() == pid)) {
        return "its death seen by the run after " + (System.nanoTime() - started) / 1_000_000
            + " ms; ";
      }
      Thread.sleep(100);
    }
    return "the run still reports it running after " + RECOVERY.toSeconds() + " s; ";
  }

  private String recovery() throws InterruptedException {
    long started = System.nanoTime();
    boolean back = server.awaitRunning(workers, RECOVERY);
    long took = (System.nanoTime() - started) / 1_000_000;
    return back ? workers + " workers running after " + took + " ms"
        : "fewer than " + workers + " workers running after " + took + " ms";
  }
}
