package dev.cryo.bench.register;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The registry against a plain-map baseline, at a worker's scale: one million pages over 100,000
 * users with two connections each. Four operations — new page, page user, keys by connection, drop
 * user with its cascade — in operations per second, and the heap bytes each page costs.
 *
 * <p>Each implementation runs in its own child JVM (same heap limit, same flags), several forks
 * alternating between the two, so neither inherits the other's JIT profile or garbage; every child
 * does warm-up rounds, then measured rounds, each on a fresh instance. The figures are medians over
 * every measured round; the ratios are registry / baseline. The workload is whole-population phases
 * (fill a million pages, read, tear everything down), which is why this is a harness of its own and
 * not a per-call microbenchmark.
 *
 * <pre>
 * java -cp cryo-bench/target/classes:cryo-register/target/classes \
 *     dev.cryo.bench.register.RegisterBenchmark [--pages 1000000] [--users 100000]
 *     [--connections-per-user 2] [--forks 2] [--warmup 1] [--rounds 3] [--heap 2g]
 * </pre>
 */
public final class RegisterBenchmark {

  private static final String[] OPERATIONS = {"newPage", "pageUser", "keysByConnection",
      "dropUser", "bytesPerPage", "bytesPerPageEveryRowLocked"};

  static volatile long sink;

  private RegisterBenchmark() {}

  /** Runs the comparison (or, with {@code --child}, one side of it) and prints the table. */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    if (options.containsKey("child")) {
      child(options);
      return;
    }
    int forks = Integer.parseInt(options.getOrDefault("forks", "2"));
    String heap = options.getOrDefault("heap", "2g");
    String loadBefore = loadAverage();
    Map<String, List<Map<String, Double>>> results = new LinkedHashMap<>();
    results.put("registry", new ArrayList<>());
    results.put("plain", new ArrayList<>());
    for (int fork = 0; fork < forks; fork++) {
      List<String> order = fork % 2 == 0 ? List.of("registry", "plain") : List.of("plain", "registry");
      for (String implementation : order) {
        results.get(implementation).addAll(fork(implementation, heap, args));
      }
    }
    String loadAfter = loadAverage();
    print(options, heap, forks, results, loadBefore, loadAfter);
  }

  // ---- the orchestrator ---------------------------------------------------------------------------

  private static List<Map<String, Double>> fork(String implementation, String heap, String[] args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xms" + heap);
    command.add("-Xmx" + heap);
    command.add("-XX:+UseG1GC");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RegisterBenchmark.class.getName());
    command.addAll(Arrays.asList(args));
    command.add("--child");
    command.add(implementation);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<Map<String, Double>> rounds = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        System.err.println("  [" + implementation + "] " + line);
        if (line.startsWith("round ")) {
          Map<String, Double> round = new HashMap<>();
          for (String pair : line.substring("round ".length()).split(" ")) {
            String[] kv = pair.split("=");
            round.put(kv[0], Double.parseDouble(kv[1]));
          }
          rounds.add(round);
        }
      }
    }
    int status = process.waitFor();
    if (status != 0 || rounds.isEmpty()) {
      throw new IllegalStateException("the " + implementation + " child failed (exit " + status
          + "); see its output above");
    }
    return rounds;
  }

  private static void print(Map<String, String> options, String heap, int forks,
      Map<String, List<Map<String, Double>>> results, String loadBefore, String loadAfter) {
    System.out.printf(Locale.ROOT, "%n%s pages, %s users x %s connections, heap %s, %d forks x %s "
            + "measured rounds each, %s %s%n",
        options.getOrDefault("pages", "1000000"), options.getOrDefault("users", "100000"),
        options.getOrDefault("connections-per-user", "2"), heap, forks,
        options.getOrDefault("rounds", "3"), System.getProperty("java.vm.name"),
        Runtime.version());
    System.out.printf(Locale.ROOT, "load average before: %s; after: %s; %d processors%n%n",
        loadBefore, loadAfter, Runtime.getRuntime().availableProcessors());
    System.out.println("| operation | registry | plain maps | registry / plain | target |");
    System.out.println("|---|---:|---:|---:|---|");
    for (String operation : OPERATIONS) {
      double registry = median(results.get("registry"), operation);
      double plain = median(results.get("plain"), operation);
      boolean memory = operation.startsWith("bytesPerPage");
      String unit = memory ? " B/page" : " ops/s";
      String target = memory ? "<= 2.00" : ">= 0.50";
      double ratio = registry / plain;
      boolean met = memory ? ratio <= 2.0 : ratio >= 0.5;
      System.out.printf(Locale.ROOT, "| %s | %s%s | %s%s | %.2f | %s %s |%n", operation,
          format(registry), unit, format(plain), unit, ratio, target, met ? "met" : "MISSED");
    }
    System.out.printf(Locale.ROOT, "%nheap used with the pages in place (median): registry %.0f MB,"
            + " plain %.0f MB, of %s%n", median(results.get("registry"), "heapUsedMb"),
        median(results.get("plain"), "heapUsedMb"), heap);
  }

  private static String format(double value) {
    return value >= 1000 ? String.format(Locale.ROOT, "%,.0f", value)
        : String.format(Locale.ROOT, "%.1f", value);
  }

  private static double median(List<Map<String, Double>> rounds, String key) {
    double[] values = rounds.stream().mapToDouble(round -> round.get(key)).sorted().toArray();
    int middle = values.length / 2;
    return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  // ---- one side, in its own JVM -------------------------------------------------------------------

  private static void child(Map<String, String> options) throws Exception {
    String implementation = options.get("child");
    int pages = Integer.parseInt(options.getOrDefault("pages", "1000000"));
    int users = Integer.parseInt(options.getOrDefault("users", "100000"));
    int perUser = Integer.parseInt(options.getOrDefault("connections-per-user", "2"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "1"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int connections = users * perUser;
    Workload workload = new Workload(pages, users, connections);
    for (int round = 0; round < warmup + rounds; round++) {
      Chain chain = implementation.equals("registry") ? new RegistryChain() : new PlainChain();
      Map<String, Double> figures = workload.run(chain);
      if (round >= warmup) {
        StringBuilder line = new StringBuilder("round");
        figures.forEach((key, value) ->
            line.append(' ').append(key).append('=').append(String.format(Locale.ROOT, "%.3f", value)));
        System.out.println(line);
      } else {
        System.out.println("warm-up " + figures);
      }
    }
  }

  /** The keys and the random orders, built once per child, outside every measurement. */
  static final class Workload {
    final String[] pageKeys;
    final String[] userKeys;
    final String[] connectionKeys;
    final int connections;
    final int perUser;
    final int[] pageOrder;
    final int[] connectionOrder;
    final int[] userOrder;

    Workload(int pages, int users, int connections) {
      this.connections = connections;
      this.perUser = connections / users;
      pageKeys = keys("page-", pages);
      userKeys = keys("user-", users);
      connectionKeys = keys("connection-", connections);
      SplittableRandom random = new SplittableRandom(42);
      pageOrder = random.ints(2_000_000, 0, pages).toArray();
      connectionOrder = random.ints(1_000_000, 0, connections).toArray();
      userOrder = shuffled(users, random);
    }

    Map<String, Double> run(Chain chain) throws InterruptedException {
      Map<String, Double> figures = new LinkedHashMap<>();
      int pages = pageKeys.length;
      long before = usedHeap();
      long start = cpuNanos();
      for (int i = 0; i < pages; i++) {
        int connection = i % connections;
        String root = i < connections ? null : pageKeys[connection];
        chain.newPage(pageKeys[i], userKeys[connection / perUser], connectionKeys[connection],
            root, root);
      }
      figures.put("newPage", rate(pages, start));
      long after = usedHeap();
      figures.put("bytesPerPage", (after - before) / (double) pages);
      figures.put("heapUsedMb", after / 1048576.0);
      check(chain.pageCount() == pages, "pages registered");
      chain.lockEveryRowOnce();
      figures.put("bytesPerPageEveryRowLocked", (usedHeap() - before) / (double) pages);
      check(chain.pageUser(pageKeys[pages - 1])
          .equals(userKeys[((pages - 1) % connections) / perUser]), "page user");

      usedHeap();
      long hash = 0;
      start = cpuNanos();
      for (int page : pageOrder) {
        hash += chain.pageUser(pageKeys[page]).length();
      }
      figures.put("pageUser", rate(pageOrder.length, start));

      usedHeap();
      start = cpuNanos();
      for (int connection : connectionOrder) {
        hash += chain.keysByConnection(connectionKeys[connection]).size();
      }
      figures.put("keysByConnection", rate(connectionOrder.length, start));
      sink = hash;

      usedHeap();
      start = cpuNanos();
      for (int user : userOrder) {
        chain.dropUser(userKeys[user]);
      }
      figures.put("dropUser", rate(userOrder.length, start));
      check(chain.pageCount() == 0, "every page dropped");
      return figures;
    }

    private static String[] keys(String prefix, int count) {
      String[] keys = new String[count];
      for (int i = 0; i < count; i++) {
        keys[i] = prefix + i;
      }
      return keys;
    }

    private static int[] shuffled(int count, SplittableRandom random) {
      int[] order = new int[count];
      for (int i = 0; i < count; i++) {
        order[i] = i;
      }
      for (int i = count - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
      }
      return order;
    }
  }

  /**
   * Operations per second of CPU used by the whole process (the benchmark thread, the collector and
   * the compiler): on a shared machine, the cost of the work rather than the share of the machine it
   * happened to get. Falls back to wall time when the JVM cannot tell its CPU time.
   */
  private static double rate(int operations, long start) {
    long now = cpuNanos();
    return operations / ((now - start) / 1e9);
  }

  private static long cpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os && os.getProcessCpuTime() >= 0) {
      return os.getProcessCpuTime();
    }
    return System.nanoTime();
  }

  private static long usedHeap() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(30);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("benchmark self-check failed: " + what);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + List.of(args));
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
