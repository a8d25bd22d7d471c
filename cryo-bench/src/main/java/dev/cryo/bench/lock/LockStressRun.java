package dev.cryo.bench.lock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.LockStressTest;
import org.apache.lucene.store.LockVerifyServer;

/**
 * Runs Lucene's own cross-process lock check against cryo's lock: one {@code LockVerifyServer} and
 * N {@code LockStressTest} client JVMs, each using {@link CryoLockFactory} on one shared directory,
 * all from Lucene's jar, unchanged.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.lock.LockStressRun CLIENTS ROUNDS [SLEEP_MS [DIR [FACTORY]]]
 * </pre>
 *
 * <p>{@code FACTORY} is the class name of the {@code FSLockFactory} checked, {@link CryoLockFactory}
 * by default; give {@code org.apache.lucene.store.NativeFSLockFactory} to run the anchor the same
 * way.
 *
 * <p>Each client, in each round: obtains the lock (trying once); one time in ten tries a second
 * obtain (sometimes through a fresh factory), which must fail; sleeps {@code SLEEP_MS}; releases;
 * sleeps again. It reports every obtain and release to the server, which fails at once if two
 * clients hold the lock together or a client releases a lock it does not hold; the failing
 * client's protocol check then throws and the client exits non-zero. The run passes when every
 * client exits with status 0, and the server prints its final line with nothing on its error
 * stream. Lucene's own nightly size is 5 clients × 30,000 rounds with a 1 ms sleep.
 */
public final class LockStressRun {

  private static final Pattern LISTENING = Pattern.compile("Listening on .*:(\\d+)\\.\\.\\.");

  private LockStressRun() {}

  /**
   * What one run gave.
   *
   * @param factory the simple name of the lock factory checked
   * @param clients how many clients ran
   * @param rounds rounds per client
   * @param clientStatuses each client's exit status (-1: killed after the time limit)
   * @param serverCompleted whether the server printed its final line and exited with 0
   * @param serverErrors what the server wrote on its error stream
   * @param seconds the wall time of the run
   * @param obtained successful obtains over all clients, when the factory counts them, else -1
   * @param refused obtains refused because another process held the lock, when counted, else -1
   * @param refusedHere obtains refused because the same JVM held the lock (Lucene's double-obtain
   *     check), when counted, else -1
   * @param directory where the outputs of the processes were kept
   */
  public record Result(String factory, int clients, int rounds, List<Integer> clientStatuses,
      boolean serverCompleted, String serverErrors, double seconds, long obtained, long refused,
      long refusedHere, Path directory) {

    /** Whether the run found no failure. */
    public boolean passed() {
      return serverCompleted && serverErrors.isBlank()
          && clientStatuses.stream().allMatch(status -> status == 0);
    }

    /** One line saying what happened. */
    public String summary() {
      return String.format(Locale.ROOT, "%s: %d clients x %d rounds against %s in %.1f s;"
              + " client exit statuses %s; server %s%s%s", passed() ? "PASSED" : "FAILED",
          clients, rounds, factory, seconds, clientStatuses,
          serverCompleted ? "completed" : "did not complete",
          obtained < 0 ? "" : "; obtains: " + obtained + " succeeded, " + refused
              + " refused as held by another process, " + refusedHere
              + " second obtains refused as held by the same JVM",
          serverErrors.isBlank() ? "" : "; server errors: " + serverErrors.strip());
    }
  }

  /**
   * Runs the check with the arguments of the class documentation, prints the summary and exits
   * with 0 when it passed, 1 otherwise.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 5) {
      System.err.println("usage: LockStressRun CLIENTS ROUNDS [SLEEP_MS [DIR [FACTORY]]]");
      System.exit(2);
    }
    int clients = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    int sleepMillis = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Path directory = args.length > 3 ? Files.createDirectories(Path.of(args[3]))
        : Files.createTempDirectory("cryo-lock-stress-");
    Class<? extends FSLockFactory> factory = args.length > 4
        ? Class.forName(args[4]).asSubclass(FSLockFactory.class) : CryoLockFactory.class;
    Result result = run(factory, clients, rounds, sleepMillis, directory);
    System.out.println(result.summary());
    System.out.println("outputs of the processes: " + result.directory());
    System.exit(result.passed() ? 0 : 1);
  }

  /**
   * Runs the server and {@code clients} clients of {@code rounds} rounds using {@code factory},
   * keeping their outputs and the lock in {@code directory}.
   */
  public static Result run(Class<? extends FSLockFactory> factory, int clients, int rounds,
      int sleepMillis, Path directory) throws IOException, InterruptedException {
    if (clients < 1 || clients > 255) {
      throw new IllegalArgumentException("between 1 and 255 clients");
    }
    long start = System.nanoTime();
    Path lockDirectory = Files.createDirectories(directory.resolve("index"));
    Path serverOut = directory.resolve("server-out.txt");
    Path serverErr = directory.resolve("server-err.txt");
    Process server = new ProcessBuilder(java(List.of(), LockVerifyServer.class.getName(),
        "127.0.0.1", Integer.toString(clients)))
        .redirectOutput(serverOut.toFile()).redirectError(serverErr.toFile()).start();
    List<Process> started = new ArrayList<>();
    started.add(server);
    try {
      int port = awaitPort(server, serverOut);
      List<Process> children = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        Path statistics = directory.resolve("client-" + i + "-statistics.txt");
        Process client = new ProcessBuilder(java(
            List.of("-D" + CryoLockFactory.STATISTICS_PROPERTY + "=" + statistics),
            LockStressTest.class.getName(), Integer.toString(i), "127.0.0.1",
            Integer.toString(port), factory.getName(), lockDirectory.toString(),
            Integer.toString(sleepMillis), Integer.toString(rounds)))
            .redirectOutput(directory.resolve("client-" + i + "-out.txt").toFile())
            .redirectError(directory.resolve("client-" + i + "-err.txt").toFile())
            .start();
        children.add(client);
        started.add(client);
      }
      // Generous: a round costs about 2 * SLEEP_MS, plus start-up; a round without sleep costs
      // the obtain alone, which on a loaded machine can take several milliseconds.
      long limitSeconds = 120 + (long) rounds * Math.max(1, sleepMillis) * 4 / 1000
          + (sleepMillis == 0 ? rounds / 50L : 0);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
      List<Integer> statuses = new ArrayList<>();
      for (Process client : children) {
        long left = deadline - System.nanoTime();
        statuses.add(client.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)
            ? client.exitValue() : -1);
      }
      boolean serverExited = server.waitFor(30, TimeUnit.SECONDS);
      boolean completed = serverExited && server.exitValue() == 0
          && Files.readString(serverOut).contains("Server terminated.");
      long obtained = 0;
      long refused = 0;
      long refusedHere = 0;
      for (int i = 0; i < clients; i++) {
        Path statistics = directory.resolve("client-" + i + "-statistics.txt");
        if (!Files.exists(statistics) || obtained < 0) {
          obtained = -1;
          refused = -1;
          refusedHere = -1;
          continue;
        }
        for (String line : Files.readAllLines(statistics)) {
          String[] words = line.split(" ");
          if (words[0].equals("obtained")) {
            obtained += Long.parseLong(words[1]);
          } else if (words[0].equals("refused")) {
            refused += Long.parseLong(words[1]);
          } else if (words[0].equals("refusedHere")) {
            refusedHere += Long.parseLong(words[1]);
          }
        }
      }
      return new Result(factory.getSimpleName(), clients, rounds, statuses, completed,
          Files.readString(serverErr), (System.nanoTime() - start) / 1e9, obtained, refused,
          refusedHere, directory);
    } finally {
      for (Process process : started) {
        if (process.isAlive()) {
          process.destroyForcibly().waitFor();
        }
      }
    }
  }

  private static int awaitPort(Process server, Path serverOut)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      Matcher listening = LISTENING.matcher(Files.readString(serverOut));
      if (listening.find()) {
        return Integer.parseInt(listening.group(1));
      }
      if (!server.isAlive()) {
        throw new IOException("LockVerifyServer exited with status " + server.exitValue()
            + " before it listened; see " + serverOut);
      }
      Thread.sleep(20);
    }
    throw new IOException("LockVerifyServer did not listen within 60 s; see " + serverOut);
  }

  private static List<String> java(List<String> options, String mainClass, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx32m"));
    command.addAll(options);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(List.of(args));
    return command;
  }
}
