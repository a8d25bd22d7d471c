package dev.cryo.chaos.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.chaos.history.History;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The run under test: {@code cryo serve} on one home, port and admin port, started again after
 * each stop or kill, driven only through its public interfaces — its process, the {@code cryo}
 * command ({@code stop}, {@code reload}), the admin listener's {@code status.json}, and the files
 * the docs name ({@code events.jsonl} and the parts it is rotated into, {@code events.N.jsonl},
 * the highest number the oldest). Each serve's output goes to {@code serve-N.log} in the output
 * folder, and its event log (its parts, oldest first, then its live file) is kept as
 * {@code events-N.jsonl} there once it has stopped.
 * Not thread-safe: the nemesis drives it from one thread.
 */
public final class Server implements AutoCloseable {

  /** A worker as the status names it. */
  public record Worker(String name, long pid, String state, boolean reception) {}

  /** What a {@code cryo} command printed, and its exit code. */
  public record CommandResult(int exitCode, String output) {}

  private static final String SERVING = "cryo serves http://";

  private final List<String> cryo;
  private final Path home;
  private final int port;
  private final int adminPort;
  /** The connections the run accepts from 127.0.0.1, where every virtual user comes from. */
  static final int LOOPBACK_CONNECTIONS = 10_000;

  private final List<String> serveOptions;
  private final Path out;
  private final HttpClient admin = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final List<Path> eventLogs = new ArrayList<>();
  private Process process;
  private int serves;
  private int kept;

  /**
   * A run of {@code cryo} (the command line that runs it, e.g. {@code java -jar cryo.jar}) on
   * {@code home}, serving on {@code port} with its admin listener on {@code adminPort}, with
   * {@code serveOptions} added to every {@code cryo serve}; logs go to {@code out}.
   */
  public Server(List<String> cryo, Path home, int port, int adminPort,
      List<String> serveOptions, Path out) {
    this.cryo = List.copyOf(cryo);
    this.home = home;
    this.port = port;
    this.adminPort = adminPort;
    this.serveOptions = List.copyOf(serveOptions);
    this.out = out;
  }

  /** Where the run serves. */
  public URI base() {
    return URI.create("http://127.0.0.1:" + port + "/");
  }

  /** A point in the running serve's event log: a file of it (by its file key) and an offset. */
  public record EventsMark(Object fileKey, long offset) {}

  /**
   * The event logs of every serve so far, in order (the running one's last: its rotated parts,
   * oldest first, then its live file).
   */
  public List<Path> eventLogs() throws IOException {
    List<Path> all = new ArrayList<>(eventLogs);
    if (process != null) {
      all.addAll(runEventFiles(home));
    }
    return all;
  }

  /**
   * The files of the log of the run in {@code home} as they stand, oldest first: its parts
   * {@code events.N.jsonl} from the highest N down, then {@code events.jsonl}.
   */
  static List<Path> runEventFiles(Path home) throws IOException {
    java.util.TreeMap<Integer, Path> parts = new java.util.TreeMap<>(
        java.util.Comparator.reverseOrder());
    try (var entries = Files.newDirectoryStream(home, "events.*.jsonl")) {
      for (Path entry : entries) {
        java.util.regex.Matcher part = PART.matcher(entry.getFileName().toString());
        if (part.matches()) {
          parts.put(Integer.parseInt(part.group(1)), entry);
        }
      }
    } catch (java.nio.file.NoSuchFileException e) {
      return List.of();
    }
    List<Path> files = new ArrayList<>(parts.values());
    Path live = home.resolve("events.jsonl");
    if (Files.exists(live)) {
      files.add(live);
    }
    return files;
  }

  private static final java.util.regex.Pattern PART =
      java.util.regex.Pattern.compile("events\\.([1-9][0-9]{0,8})\\.jsonl");

  /**
   * Starts {@code cryo serve} and waits until it says it serves; throws when it exits first or
   * does not within {@code timeout} (it is killed then).
   */
  public void start(Duration timeout) throws IOException, InterruptedException {
    keepEvents();
    serves++;
    Path log = out.resolve("serve-" + serves + ".log");
    List<String> command = new ArrayList<>(cryo);
    command.addAll(List.of("serve", "--home", home.toString(), "--port", Integer.toString(port),
        "--admin-port", Integer.toString(adminPort), "--placement-header",
        // Every virtual user is a browser of its own, but all come from 127.0.0.1: the limit per
        // client address would close their connections as one client's.
        "--max-connections-per-address", Integer.toString(LOOPBACK_CONNECTIONS),
        // and each one's first request, a new visitor, would be counted against one address too
        "--new-visitors-per-address", "off"));
    command.addAll(serveOptions);
    process = new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.readString(log, StandardCharsets.UTF_8).contains(SERVING)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IOException("cryo serve exited " + process.exitValue() + " before serving: "
            + tail(log));
      }
      Thread.sleep(50);
    }
    killCommander();
    throw new IOException("cryo serve did not serve within " + timeout + ": " + tail(log));
  }

  /** Whether the commander's process lives. */
  public boolean serving() {
    return process != null && process.isAlive();
  }

  /** The commander's process id. */
  public long commanderPid() {
    return process.pid();
  }

  /** The workers, live from the admin listener's {@code status.json}; empty when it answers none. */
  public List<Worker> workers() throws InterruptedException {
    List<Worker> workers = new ArrayList<>();
    try {
      HttpResponse<String> response = admin.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort
              + "/_cryo/status.json")).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return workers;
      }
      JsonNode status = History.JSON.readTree(response.body());
      JsonNode list = status.has("workers") ? status.get("workers")
          : status.path("status").path("workers");
      for (JsonNode worker : list) {
        workers.add(new Worker(worker.path("name").asText(), worker.path("pid").asLong(),
            worker.path("state").asText(), worker.path("reception").asBoolean()));
      }
    } catch (IOException e) {
      return workers;
    }
    return workers;
  }

  /** The workers in state {@code running}. */
  public List<Worker> running() throws InterruptedException {
    return workers().stream().filter(worker -> worker.state().equals("running")).toList();
  }

  /**
   * Waits until at least {@code count} workers run, for at most {@code timeout}; true when they
   * do.
   */
  public boolean awaitRunning(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (running().size() >= count) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  /**
   * {@code kill -9} of the commander, then waits for its workers to exit on the end of their wire
   * (they are killed after 20 s); returns what it saw.
   */
  public String killCommander() throws InterruptedException {
    List<Worker> workers = process.isAlive() ? workers() : List.of();
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
    StringBuilder seen = new StringBuilder("commander " + process.pid() + " killed");
    for (Worker worker : workers) {
      Optional<ProcessHandle> handle = ProcessHandle.of(worker.pid());
      if (handle.isEmpty()) {
        continue;
      }
      boolean gone = handle.get().onExit().completeOnTimeout(null, 20, TimeUnit.SECONDS)
          .thenApply(exited -> !handle.get().isAlive()).join();
      if (!gone) {
        handle.get().destroyForcibly();
        seen.append("; worker ").append(worker.name()).append(" outlived it 20 s: killed");
      }
    }
    return seen.toString();
  }

  /**
   * {@code cryo stop --mode drain}, then waits for the commander to exit; returns its exit code
   * and the tail of its log.
   */
  public CommandResult drain(Duration timeout) throws IOException, InterruptedException {
    CommandResult stop = cryo(Duration.ofSeconds(60), "stop", "--mode", "drain", "--home",
        home.toString());
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      String seen = killCommander();
      return new CommandResult(-1, "the drain did not end within " + timeout + " (" + seen
          + "); cryo stop said: " + stop.output());
    }
    return new CommandResult(process.exitValue(), lastLines(serveLog(), 2));
  }

  /** Starts {@code cryo reload --wait ...}; the caller waits for it. */
  public Process startReload(Duration wait) throws IOException {
    List<String> command = new ArrayList<>(cryo);
    command.addAll(List.of("reload", "--home", home.toString(), "--wait",
        wait.toSeconds() + "s"));
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
  }

  /** Waits for a command started here and returns what it printed. */
  public static CommandResult result(Process command, Duration timeout)
      throws IOException, InterruptedException {
    if (!command.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      command.destroyForcibly();
      return new CommandResult(-1, "no end within " + timeout);
    }
    return new CommandResult(command.exitValue(),
        new String(command.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
  }

  /** Runs {@code cryo args...} and waits for it. */
  public CommandResult cryo(Duration timeout, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(cryo);
    command.addAll(List.of(args));
    Process child = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    return result(child, timeout);
  }

  /** The running serve's event log's end now (no file key and 0 when there is none yet). */
  public EventsMark eventsMark() throws IOException {
    Path live = home.resolve("events.jsonl");
    try {
      var attributes = Files.readAttributes(live,
          java.nio.file.attribute.BasicFileAttributes.class);
      return new EventsMark(attributes.fileKey(), attributes.size());
    } catch (java.nio.file.NoSuchFileException e) {
      return new EventsMark(null, 0);
    }
  }

  /**
   * Whether the running serve's event log has a line with {@code "event":"<type>"} past
   * {@code mark}: in the file the mark is in, past its offset, and in every file rotated after it
   * (all of them when the mark's file is gone: rotated past the kept count, or no file then).
   */
  public boolean eventSince(EventsMark mark, String type) throws IOException {
    List<Path> files = runEventFiles(home);
    int from = 0;
    boolean found = false;
    for (int i = files.size() - 1; i >= 0 && !found; i--) {
      try {
        Object key = Files.readAttributes(files.get(i),
            java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        if (key != null && key.equals(mark.fileKey())) {
          from = i;
          found = true;
        }
      } catch (java.nio.file.NoSuchFileException e) {
        // rotated away meanwhile: not the mark's
      }
    }
    for (int i = from; i < files.size(); i++) {
      boolean marked = found && i == from;
      if (contains(files.get(i), marked ? mark.offset() : 0, "\"event\":\"" + type + "\"")) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(Path file, long offset, String text) throws IOException {
    try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file)) {
      long length = channel.size() - offset;
      if (length <= 0) {
        return false;
      }
      java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate((int) Math.min(length, 1 << 24));
      channel.read(bytes, offset);
      return new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8)
          .contains(text);
    } catch (java.nio.file.NoSuchFileException e) {
      return false; // rotated away meanwhile
    }
  }

  /** Sends {@code signal} (e.g. {@code STOP}) to {@code pid} with kill(1); true when sent. */
  public static boolean signal(long pid, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
  }

  /** The running (or last) serve's log. */
  public Path serveLog() {
    return out.resolve("serve-" + serves + ".log");
  }

  /** Keeps the stopped serve's log, its parts oldest first then its live file, as one file. */
  private void keepEvents() throws IOException {
    List<Path> files = runEventFiles(home);
    if (serves > kept && !files.isEmpty()) {
      kept = serves;
      Path kept = out.resolve("events-" + serves + ".jsonl");
      try (java.io.OutputStream copy = Files.newOutputStream(kept)) {
        for (Path file : files) {
          Files.copy(file, copy);
        }
      }
      eventLogs.add(kept);
    }
  }

  /**
   * Drains the run (or kills it when the drain does not end) and keeps its event log; a second
   * call does nothing.
   */
  @Override
  public void close() throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      drain(Duration.ofSeconds(30));
    }
    keepEvents();
    process = null;
  }

  private static String tail(Path log) throws IOException {
    return lastLines(log, 5);
  }

  private static String lastLines(Path log, int count) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join(" | ", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }
}
