package dev.cryo.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.bench.BackgroundThreads;
import dev.cryo.bench.LoadAverage;
import dev.cryo.bench.ProcessCpu;
import dev.cryo.bench.ProcessSwitches;
import dev.cryo.bench.Scratch;
import dev.cryo.bench.ThreadTimes;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.commander.EventLogFiles;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import dev.cryo.commander.WorkerCommand;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Where a move's time goes: one logged-in user of the demo moved again and again, each move
 * handed straight to {@link Commander#serve} (no HTTP) and cut into steps by the timestamps of
 * the commander's event log ({@code events.jsonl}, a line as each announcement is folded): from
 * the request to the fold of his {@code user_frozen} (hold, {@code freeze_user} over the wire,
 * the freeze on worker A), from there to the fold of his {@code user_adopted} on worker B (the
 * request placed and sent to B, the wake), and from there to the reply (the handler on B, the reply over the wire).
 * Beside it, in the same run, the same moves through the HTTP front ({@link HttpBench.Mover}, one
 * connection for the whole run),
 * blocks alternating.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.MoveSteps [MOVES [BLOCKS [WARMUP [HTTP-WARMUP]]]]
 * </pre>
 *
 * <p>The first block begins with {@code WARMUP} (default 50) direct moves, then {@code
 * HTTP-WARMUP} (default 0) moves through the front, that are not counted.
 * After the steps it prints the processor time per direct move of this JVM (the commander and the
 * bench) and of each worker, from {@code /proc} (clock ticks: meaningful over a few hundred moves),
 * their threads' switches per direct move (voluntary ones are wake-ups), and the same by group
 * of threads ({@link ThreadTimes}: processor time, time waiting for a processor, wake-ups).
 *
 * <p>To look at a move with the JVMs' own eyes: {@code -Dcryo.bench.workerJvm=OPTIONS} adds
 * options to the workers' command lines ({@link #workerCommand}), {@code JAVA_TOOL_OPTIONS}
 * reaches all three JVMs (with {@code %p} in a log's file name, one file each), and a line on the
 * standard error as each block's measured direct moves begin ({@code block N: measured direct
 * moves begin at INSTANT}) tells a watcher when to start a recording. With {@code
 * -Dcryo.bench.moveBackground=true} it also prints what the JVMs' compilers and collectors ran
 * beside the direct moves, over all of them and over the slowest 1 % ({@link #beside}).
 */
public final class MoveSteps {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Where each direct move is written, one line each (its start, then the whole move and its
   * three steps in microseconds), to lay beside the JVMs' logs: {@code -Dcryo.bench.moveLog=FILE}
   * (default: nowhere).
   */
  private static final String MOVE_LOG = System.getProperty("cryo.bench.moveLog");

  /**
   * Options added to each worker JVM's command line after the commander's own ({@link
   * WorkerCommand#defaultJvm()}), separated by spaces, to see a worker with the JVM's own eyes
   * (its collector, its logs): {@code -Dcryo.bench.workerJvm="-XX:+UseSerialGC
   * -Xlog:gc:file=/tmp/w-%p.log"} (default: none, the workers as {@code cryo serve} starts them).
   */
  private static final String WORKER_JVM = System.getProperty("cryo.bench.workerJvm", "");

  /**
   * Whether the compilers' and the collectors' processor time in the three JVMs is sampled around
   * each direct move ({@link BackgroundThreads}; a few file reads between two moves, outside the
   * timed span), to tell whether the slowest moves ran beside the JIT or a collection: {@code
   * -Dcryo.bench.moveBackground=true} (default: not sampled, the bench as before).
   */
  private static final boolean MOVE_BACKGROUND = Boolean.getBoolean("cryo.bench.moveBackground");

  private MoveSteps() {}

  /**
   * Runs {@code BLOCKS} (default 4) blocks of {@code MOVES} (default 200) moves each way, after
   * {@code WARMUP} (default 50) direct moves and {@code HTTP-WARMUP} (default 0) moves through
   * the front, none of them counted. Without the second warm-up the JIT compiles the front's code
   * during the direct blocks that follow the first block through it (docs/benchmarks.md).
   */
  public static void main(String[] args) throws Exception {
    int moves = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int blocks = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 50;
    int httpWarmup = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    Path home = Files.createTempDirectory("cryo-move-steps");
    CommanderConfig config = CommanderConfig.builder(home, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).workerCommand(workerCommand(WORKER_JVM)).build();
    Map<String, Histogram> steps = new LinkedHashMap<>();
    for (String step : List.of("direct: whole move", "direct: request -> user_frozen folded",
        "direct: user_frozen -> woken on B folded", "direct: woken -> reply",
        "http: whole move")) {
      steps.put(step, new Histogram(60_000_000L, 3));
    }
    String load = LoadAverage.now();
    String cpuLine = "";
    try (Commander commander = Commander.start(config);
        Front front = Front.builder(Upstream.of(commander)).port(0).build();
        HttpBench.Mover mover = started(front)) {
      String connection = "0123456789abcdef0123456789abcdef";
      Reply page = commander.serve(post(connection, "/api/pages", "{}"));
      check(page, "open a page");
      check(commander.serve(post(connection, "/api/login", "{\"user\":\"stepper\"}")), "login");
      List<long[]> timed = new ArrayList<>();
      List<Long> pids = new ArrayList<>();
      pids.add(ProcessHandle.current().pid());
      commander.status().workers().forEach(worker -> pids.add(worker.pid()));
      long[] cpu = new long[pids.size()];
      long[] switches = new long[2 * pids.size()];
      List<Map<String, long[]>> threads = new ArrayList<>();
      pids.forEach(pid -> threads.add(new java.util.TreeMap<>()));
      BackgroundThreads background = BackgroundThreads.of(List.of());
      for (int block = 0; block < blocks; block++) {
        for (int i = 0; i < moves + (block == 0 ? warmup : 0); i++) {
          if (i == (block == 0 ? warmup : 0)) {
            if (block == 0 && httpWarmup > 0) {
              mover.moves(httpWarmup);
            }
            addCpu(cpu, switches, pids, -1);
            addThreads(threads, pids, -1);
            System.err.printf("block %d: measured direct moves begin at %s%n", block,
                Instant.now());
            if (MOVE_BACKGROUND) {
              background = BackgroundThreads.of(pids);
            }
          }
          long[] before = MOVE_BACKGROUND ? background.sample() : null;
          Instant start = Instant.now();
          Reply moved = commander.serve(post(connection, "/api/move", "{}"));
          Instant end = Instant.now();
          long[] after = MOVE_BACKGROUND ? background.sample() : null;
          check(moved, "move");
          if (block > 0 || i >= warmup) {
            timed.add(MOVE_BACKGROUND
                ? new long[] {nanos(start), nanos(end),
                    after[BackgroundThreads.JIT] - before[BackgroundThreads.JIT],
                    after[BackgroundThreads.GC] - before[BackgroundThreads.GC]}
                : new long[] {nanos(start), nanos(end)});
          }
        }
        addCpu(cpu, switches, pids, 1);
        addThreads(threads, pids, 1);
        Histogram http = mover.moves(moves);
        steps.get("http: whole move").add(http);
      }
      cut(home, timed, steps);
      cpuLine = cpuPerMove(cpu, timed.size()) + System.lineSeparator()
          + switchesPerMove(switches, timed.size()) + System.lineSeparator()
          + threadsPerMove(threads, timed.size())
          + (MOVE_BACKGROUND ? System.lineSeparator() + beside(timed) : "");
    } finally {
      Scratch.delete(home);
    }
    System.out.printf("moves, %d blocks of %d each way; load average %s -> %s%n", blocks, moves,
        load, LoadAverage.now());
    System.out.printf("%-42s %8s %8s %8s %8s %8s%n", "step", "count", "p50 us", "p90 us",
        "p99 us", "max us");
    for (Map.Entry<String, Histogram> step : steps.entrySet()) {
      Histogram h = step.getValue();
      System.out.printf("%-42s %8d %8d %8d %8d %8d%n", step.getKey(), h.getTotalCount(),
          h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
          h.getMaxValue());
    }
    System.out.println(cpuLine);
  }

  /** Starts {@code front} and opens the user moved through it. */
  private static HttpBench.Mover started(Front front) throws Exception {
    front.start();
    return new HttpBench.Mover(URI.create("http://127.0.0.1:" + front.port() + "/"));
  }

  /**
   * The workers' command: the commander's default with {@code options} (space-separated, may be
   * blank) added after its own.
   */
  static WorkerCommand workerCommand(String options) {
    List<String> extra = Arrays.stream(options.trim().split("\\s+"))
        .filter(option -> !option.isEmpty()).toList();
    WorkerCommand standard = WorkerCommand.defaultJvm();
    if (extra.isEmpty()) {
      return standard;
    }
    return spawn -> {
      List<String> command = new ArrayList<>(standard.command(spawn));
      command.addAll(command.indexOf("-cp"), extra);
      return command;
    };
  }

  /**
   * Adds (sign 1) or takes away (sign -1) each process's processor time so far ({@code cpu}) and
   * its threads' voluntary and involuntary switches ({@code switches}, two per process).
   */
  private static void addCpu(long[] cpu, long[] switches, List<Long> pids, int sign) {
    for (int i = 0; i < cpu.length; i++) {
      cpu[i] += sign * ProcessCpu.nanos(pids.get(i));
      long[] now = ProcessSwitches.of(pids.get(i));
      switches[2 * i] += sign * now[0];
      switches[2 * i + 1] += sign * now[1];
    }
  }

  /**
   * Adds (sign 1) or takes away (sign -1) each process's counts by group of threads so far
   * ({@link ThreadTimes}).
   */
  private static void addThreads(List<Map<String, long[]>> threads, List<Long> pids, int sign) {
    for (int i = 0; i < pids.size(); i++) {
      Map<String, long[]> sum = threads.get(i);
      ThreadTimes.of(pids.get(i)).forEach((group, counts) -> {
        long[] into = sum.computeIfAbsent(group, g -> new long[counts.length]);
        for (int k = 0; k < counts.length; k++) {
          into[k] += sign * counts[k];
        }
      });
    }
  }

  /**
   * Each process's groups of threads that ran at least 2 % of its processor time in the direct
   * moves, per move: microseconds on a processor, microseconds runnable but waiting for one, and
   * voluntary switches (wake-ups).
   */
  private static String threadsPerMove(List<Map<String, long[]>> threads, int moves) {
    StringBuilder out = new StringBuilder("by thread, per direct move: run us / waiting for a"
        + " processor us / wake-ups");
    for (int i = 0; i < threads.size(); i++) {
      Map<String, long[]> groups = threads.get(i);
      long all = ThreadTimes.total(groups)[ThreadTimes.RUN];
      out.append(System.lineSeparator()).append(i == 0 ? "  commander (this JVM)" : "  worker " + i)
          .append(String.format(": all %.0f us", all / 1000.0 / moves));
      ThreadTimes.largest(groups, all / 50).forEach(group -> {
        long[] c = group.getValue();
        out.append(System.lineSeparator()).append(String.format("    %-16s %7.0f %7.0f %5.1f",
            group.getKey(), c[ThreadTimes.RUN] / 1000.0 / moves,
            c[ThreadTimes.WAIT] / 1000.0 / moves, (double) c[ThreadTimes.VOLUNTARY] / moves));
      });
    }
    return out.toString();
  }

  /**
   * What ran beside the direct moves ({@code timed}: start, end, compilers' and collectors'
   * nanoseconds during the move): per move, over all of them and over the slowest 1 %, and how
   * many of the slowest 1 % ran beside at least 1 ms of either.
   */
  static String beside(List<long[]> timed) {
    List<long[]> slowest = new ArrayList<>(timed);
    slowest.sort((a, b) -> Long.compare(b[1] - b[0], a[1] - a[0]));
    slowest = slowest.subList(0, Math.max(1, timed.size() / 100));
    long withJit = slowest.stream().filter(m -> m[2] >= 1_000_000).count();
    long withGc = slowest.stream().filter(m -> m[3] >= 1_000_000).count();
    return String.format(Locale.ROOT, "the JVMs' compilers / collectors beside the direct moves,"
        + " us per move:"
        + " all %d moves %.0f / %.0f; slowest %d (from %.2f ms) %.0f / %.0f, of which %d beside"
        + " >= 1 ms of the compilers, %d beside >= 1 ms of the collectors", timed.size(),
        mean(timed, 2), mean(timed, 3), slowest.size(),
        (slowest.get(slowest.size() - 1)[1] - slowest.get(slowest.size() - 1)[0]) / 1e6,
        mean(slowest, 2), mean(slowest, 3), withJit, withGc);
  }

  private static double mean(List<long[]> moves, int at) {
    return moves.stream().mapToLong(m -> m[at]).average().orElse(0) / 1000.0;
  }

  /** The threads' switches per direct move, voluntary / involuntary, of each process. */
  private static String switchesPerMove(long[] switches, int moves) {
    StringBuilder line = new StringBuilder("thread switches per direct move, voluntary /"
        + " involuntary: commander (this JVM) ");
    long voluntary = 0;
    long involuntary = 0;
    for (int i = 0; i < switches.length / 2; i++) {
      if (i > 0) {
        line.append(", worker ").append(i).append(' ');
      }
      line.append(String.format("%.1f / %.1f", (double) switches[2 * i] / moves,
          (double) switches[2 * i + 1] / moves));
      voluntary += switches[2 * i];
      involuntary += switches[2 * i + 1];
    }
    return line.append(String.format(", all %.1f / %.1f", (double) voluntary / moves,
        (double) involuntary / moves)).toString();
  }

  /** The processor time of the direct moves, per move, this JVM (commander) and each worker. */
  private static String cpuPerMove(long[] cpu, int moves) {
    StringBuilder line = new StringBuilder("processor time per direct move, us: commander (this"
        + " JVM) " + cpu[0] / 1000 / moves);
    long all = cpu[0];
    for (int i = 1; i < cpu.length; i++) {
      line.append(", worker ").append(i).append(' ').append(cpu[i] / 1000 / moves);
      all += cpu[i];
    }
    return line.append(", all ").append(all / 1000 / moves).toString();
  }

  /** Cuts each timed move by the event log's timestamps of the stepper's frozen and woken folds. */
  private static void cut(Path home, List<long[]> timed, Map<String, Histogram> steps)
      throws IOException {
    List<long[]> frozen = new ArrayList<>();
    List<long[]> woken = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (Path log : EventLogFiles.run(home)) { // the rotated parts, oldest first, then the live
      lines.addAll(Files.readAllLines(log));
    }
    for (String line : lines) {
      JsonNode event = JSON.readTree(line);
      if (!"stepper".equals(event.path("user").asText())) {
        continue;
      }
      if (!"fold".equals(event.path("event").asText())) {
        continue;
      }
      String kind = event.path("kind").asText();
      long at = nanos(Instant.parse(event.path("at").asText()));
      if (kind.equals("user_frozen")) {
        frozen.add(new long[] {at});
      } else if (kind.equals("user_adopted")) {
        woken.add(new long[] {at});
      }
    }
    int f = 0;
    int w = 0;
    List<String> each = MOVE_LOG == null ? null : new ArrayList<>();
    for (long[] move : timed) {
      while (f < frozen.size() && frozen.get(f)[0] < move[0]) {
        f++;
      }
      while (w < woken.size() && woken.get(w)[0] < move[0]) {
        w++;
      }
      steps.get("direct: whole move").recordValue(Math.max(1, (move[1] - move[0]) / 1000));
      if (f < frozen.size() && w < woken.size() && frozen.get(f)[0] <= move[1]
          && woken.get(w)[0] <= move[1]) {
        long fz = frozen.get(f)[0];
        long wk = woken.get(w)[0];
        if (each != null) {
          each.add(Instant.ofEpochSecond(0, move[0]) + " " + (move[1] - move[0]) / 1000 + " "
              + (fz - move[0]) / 1000 + " " + (wk - fz) / 1000 + " " + (move[1] - wk) / 1000);
        }
        steps.get("direct: request -> user_frozen folded").recordValue(Math.max(1,
            (fz - move[0]) / 1000));
        steps.get("direct: user_frozen -> woken on B folded").recordValue(Math.max(1,
            (wk - fz) / 1000));
        steps.get("direct: woken -> reply").recordValue(Math.max(1, (move[1] - wk) / 1000));
      }
    }
    if (each != null) {
      Files.write(Path.of(MOVE_LOG), each);
    }
  }

  private static Request post(String connection, String path, String body) {
    return new Request(connection, "POST", path, "", List.of(Map.entry("Content-Type",
        "application/json")), body.getBytes(StandardCharsets.UTF_8));
  }

  private static void check(Reply reply, String what) {
    if (reply.status() != 200) {
      throw new IllegalStateException(what + " answered " + reply.status() + ": "
          + reply.bodyText());
    }
  }

  private static long nanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }
}
