package dev.cryo.cli;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code cryo serve} in a child JVM on the test classpath, on any free port, with its home in
 * a scratch directory. {@link #close} stops it (SIGTERM, then SIGKILL of whatever is left).
 */
final class ServeRun implements AutoCloseable {

  private static final Pattern URL = Pattern.compile("cryo serves (http://[^ ]+/)");

  private final Process process;
  private final Path home;
  private final Path out;
  private final Path err;
  private URI base;

  private ServeRun(Process process, Path home, Path out, Path err) {
    this.process = process;
    this.home = home;
    this.out = out;
    this.err = err;
  }

  /**
   * Starts {@code cryo serve --home HOME --port 0 args...}; does not wait for it. The home's parent
   * is created if missing, the home is left to the run (which creates it private).
   */
  static ServeRun start(Path home, String... args) throws IOException {
    return start(home, List.of(), args);
  }

  /** Starts {@code cryo serve} as {@link #start(Path, String...)} with {@code jvm} options. */
  static ServeRun start(Path home, List<String> jvm, String... args) throws IOException {
    return start(home, 0, jvm, java.util.Map.of(), args);
  }

  /** Starts {@code cryo serve} with {@code jvm} options and {@code env} added to its environment. */
  static ServeRun start(Path home, List<String> jvm, java.util.Map<String, String> env,
      String... args) throws IOException {
    return start(home, 0, jvm, env, args);
  }

  /** Starts {@code cryo serve --home HOME --port PORT args...}; does not wait for it. */
  static ServeRun startOnPort(Path home, int port, String... args) throws IOException {
    return start(home, port, List.of(), java.util.Map.of(), args);
  }

  /**
   * Starts {@code cryo serve} on {@code port} (0: any free one) with {@code jvm} options and
   * {@code env}; does not wait for it.
   */
  static ServeRun start(Path home, int port, List<String> jvm, java.util.Map<String, String> env,
      String... args) throws IOException {
    Files.createDirectories(home.getParent());
    Path out = Files.createTempFile(home.getParent(), "serve-out", ".txt");
    Path err = Files.createTempFile(home.getParent(), "serve-err", ".txt");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Cryo.class.getName(),
        "serve", "--home", home.toString(), "--port", Integer.toString(port)));
    if (!List.of(args).contains("--new-visitors-per-address")) {
      // Every browser of a test comes from 127.0.0.1: its budget of new visitors would hold a
      // test's hundreds of guests to one client's. A test of the budget sets its own.
      command.addAll(List.of("--new-visitors-per-address", "off"));
    }
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    Process process = builder
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    return new ServeRun(process, home, out, err);
  }

  /** Starts a run and waits for its URL line. */
  static ServeRun serving(Path home, String... args) throws Exception {
    return serving(home, List.of(), args);
  }

  /** Starts a run with {@code jvm} options and waits for its URL line. */
  static ServeRun serving(Path home, List<String> jvm, String... args) throws Exception {
    return serving(home, jvm, java.util.Map.of(), args);
  }

  /** Starts a run with {@code jvm} options and {@code env}, and waits for its URL line. */
  static ServeRun serving(Path home, List<String> jvm, java.util.Map<String, String> env,
      String... args) throws Exception {
    return served(start(home, jvm, env, args));
  }

  /**
   * Starts a run on {@code port} and waits for its URL line: a second run on the port of one that
   * ended is what a browser sees as its server restarted.
   */
  static ServeRun servingOnPort(Path home, int port, String... args) throws Exception {
    return served(start(home, port, List.of(), java.util.Map.of(), args));
  }

  /** {@code run} once it printed its URL; closed when it does not. */
  private static ServeRun served(ServeRun run) throws Exception {
    try {
      run.awaitUrl();
      return run;
    } catch (Exception | AssertionError e) {
      run.close();
      throw e;
    }
  }

  /** Waits for the one line with the URL, and returns the URL. */
  URI awaitUrl() throws Exception {
    Poll.until("cryo serve prints its URL (stderr so far: " + errSafe() + ")", () -> {
      Matcher matcher = URL.matcher(outSafe());
      if (matcher.find()) {
        base = URI.create(matcher.group(1));
        return true;
      }
      if (!process.isAlive()) {
        throw new AssertionError("cryo serve exited with " + process.exitValue()
            + " before serving; stdout: " + outSafe() + "; stderr: " + errSafe());
      }
      return false;
    });
    return base;
  }

  URI base() {
    return base;
  }

  Path home() {
    return home;
  }

  Process process() {
    return process;
  }

  String out() {
    return outSafe();
  }

  String err() {
    return errSafe();
  }

  private String outSafe() {
    try {
      return Files.readString(out);
    } catch (IOException e) {
      return "";
    }
  }

  private String errSafe() {
    try {
      return Files.readString(err);
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits (bounded) for the run to exit and returns its exit code. */
  int exitCode() throws InterruptedException {
    if (!process.waitFor(Poll.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("cryo serve did not exit; stderr: " + errSafe());
    }
    return process.exitValue();
  }

  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    process.destroy();
    try {
      process.waitFor(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
    all.addAll(process.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
  }

  /** The worker processes of this run, as found among the serve's descendants now. */
  List<ProcessHandle> workerProcesses() {
    return process().descendants().filter(ServeRun::isWorker).toList();
  }

  /**
   * Whether the process runs a worker, read from {@code /proc/PID/cmdline} itself: the JDK's
   * {@code ProcessHandle.Info.commandLine()} is empty for a command line past about 4 KiB, which
   * a worker's class path is.
   */
  private static boolean isWorker(ProcessHandle process) {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc",
          Long.toString(process.pid()), "cmdline"), java.nio.charset.StandardCharsets.ISO_8859_1)
          .contains("dev.cryo.worker.WorkerMain");
    } catch (java.io.IOException | RuntimeException gone) {
      return false; // ended meanwhile, or not readable: not a worker of this run
    }
  }
}
