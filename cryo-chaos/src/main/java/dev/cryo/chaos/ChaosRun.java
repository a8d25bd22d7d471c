package dev.cryo.chaos;

import dev.cryo.chaos.check.Checker;
import dev.cryo.chaos.check.Timeline;
import dev.cryo.chaos.check.Verdict;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.History;
import dev.cryo.chaos.load.DemoClient;
import dev.cryo.chaos.load.Recorder;
import dev.cryo.chaos.load.Workload;
import dev.cryo.chaos.load.WorkloadOptions;
import dev.cryo.chaos.nemesis.Nemesis;
import dev.cryo.chaos.nemesis.Schedule;
import dev.cryo.chaos.nemesis.Server;
import dev.cryo.chaos.nemesis.SmallDisk;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One audited run: {@code cryo serve} started on a fresh home, the workload driven against it, the
 * nemesis's schedule injected, every user read a last time, the run drained, and the checker's
 * verdict on the history and the event logs — written with the history, the event logs, the serve
 * logs and the timeline into the output folder.
 */
public final class ChaosRun {

  /**
   * What to run.
   *
   * @param cryo the command line that runs {@code cryo} (e.g. {@code java -jar cryo.jar})
   * @param out the output folder (created; must be empty or absent)
   * @param seed the seed of the schedule and the workload
   * @param schedule the faults, in order
   * @param length how long the faults go on (the schedule is cut there)
   * @param workload the workload's shape (its seed is {@code seed})
   * @param workers the workers of {@code cryo serve}
   * @param serveOptions more options for every {@code cryo serve}
   * @param tmpfsMegabytes the home on a tmpfs of this size (0: not; the disk fault is skipped)
   * @param warmup plain load before the first fault
   * @param settle plain load after the last fault, before the last reads
   * @param grace how long after a fault its failures are still explained by it
   */
  public record Options(List<String> cryo, Path out, long seed, Schedule schedule,
      Duration length, WorkloadOptions workload, int workers, List<String> serveOptions,
      int tmpfsMegabytes, Duration warmup, Duration settle, Duration grace) {}

  /**
   * What a run gave.
   *
   * @param verdict the checker's verdict
   * @param out the output folder
   * @param faults the faults injected, by kind, in order (a skipped one is not among them)
   * @param operations how many operations completed
   * @param seconds how long the load ran
   */
  public record Outcome(Verdict verdict, Path out, List<FaultKind> faults, long operations,
      double seconds) {}

  private ChaosRun() {}

  /** Runs {@code options}, telling its progress on {@code console}. */
  public static Outcome run(Options options, PrintStream console)
      throws IOException, InterruptedException {
    Path out = options.out().toAbsolutePath();
    Files.createDirectories(out);
    Path home = out.resolve("home");
    SmallDisk disk = null;
    if (options.tmpfsMegabytes() > 0) {
      try {
        disk = SmallDisk.mount(home, options.tmpfsMegabytes());
      } catch (IOException e) {
        console.println("chaos: the disk fault is skipped: the home could not get a file system"
            + " of its own: " + e.getMessage());
      }
    }
    int port = freePort();
    int adminPort = freePort();
    console.printf("chaos: seed %d, output %s%n", options.seed(), out);
    List<FaultKind> injected = new ArrayList<>();
    long started;
    long ended;
    List<Path> events;
    Path historyFile = out.resolve("history.jsonl");
    try (History history = History.open(historyFile);
        Server server = new Server(options.cryo(), home, port, adminPort,
            serveOptions(options), out);
        DemoClient client = new DemoClient(server.base(), options.workload().timeout())) {
      Recorder recorder = new Recorder(history);
      recorder.meta("seed " + options.seed() + "; " + options);
      server.start(Duration.ofSeconds(90));
      console.printf("chaos: cryo serves %s (admin port %d)%n", server.base(), adminPort);
      Workload workload = new Workload(options.workload(), client, recorder);
      started = System.nanoTime();
      workload.start();
      Thread.sleep(options.warmup().toMillis());
      Nemesis nemesis = new Nemesis(server, workload, recorder, disk, options.workers(),
          options.seed(), console);
      long deadline = System.nanoTime() + options.length().toNanos();
      for (Schedule.Step step : options.schedule().steps()) {
        Thread.sleep(step.quiet().toMillis());
        if (System.nanoTime() > deadline) {
          break;
        }
        if (nemesis.inject(step.kind())) {
          injected.add(step.kind());
        }
        recorder.flush();
      }
      Thread.sleep(options.settle().toMillis());
      workload.stop();
      ended = System.nanoTime();
      console.printf("chaos: load stopped after %d operations; reading every user once more%n",
          recorder.completed());
      workload.finalReads(Duration.ofSeconds(60));
      recorder.flush();
      server.close(); // drained, its event log kept
      events = server.eventLogs();
    } finally {
      if (disk != null) {
        disk.close();
      }
    }
    List<Entry> history = History.read(historyFile);
    Verdict verdict = Checker.check(history, events, options.grace());
    Files.writeString(out.resolve("verdict.txt"), verdict.text(), StandardCharsets.UTF_8);
    Files.writeString(out.resolve("verdict.json"), verdict.json(), StandardCharsets.UTF_8);
    Timeline.write(history, verdict, out.resolve("timeline.html"));
    long operations = history.stream().filter(Entry::isCompletion).count();
    return new Outcome(verdict, out, List.copyOf(injected), operations,
        (ended - started) / 1e9);
  }

  private static List<String> serveOptions(Options options) {
    List<String> all = new ArrayList<>(List.of("--workers", Integer.toString(options.workers())));
    all.addAll(options.serveOptions());
    return all;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
