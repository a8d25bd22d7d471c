package dev.cryo.lock.crossprocess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of the test classpath, with the same {@code java} as this JVM.
 * Its standard output and error are merged and read by a daemon thread, so that the child never
 * blocks on a full pipe; {@link #awaitLine} waits for a line of its protocol. Closing it kills it
 * ({@code SIGKILL}) if it still runs. A child also ends by itself when its standard input reaches end
 * of stream, which happens when this JVM dies: children never outlive their test.
 */
public final class ChildJvm implements AutoCloseable {

  private static final int TAIL_LINES = 60;

  private final String name;
  private final Process process;
  private final Writer stdin;
  private final Thread reader;
  private final Object monitor = new Object();
  private final List<String> lines = new ArrayList<>(); // guarded by monitor; protocol lines only
  private final Deque<String> tail = new ArrayDeque<>(); // guarded by monitor; every line
  private boolean ended; // guarded by monitor

  private ChildJvm(String name, Process process) {
    this.name = name;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader = new Thread(this::readOutput, "output of " + name);
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /**
   * Starts {@code mainClass} with {@code arguments} in a new JVM on this JVM's class path.
   *
   * @param name a name for messages
   */
  public static ChildJvm start(String name, Class<?> mainClass, List<String> arguments)
      throws IOException {
    return start(name, List.of(), mainClass, arguments);
  }

  /**
   * Starts {@code mainClass} as {@link #start(String, Class, List)} does, through {@code wrapper}
   * (a command that runs the rest of its arguments, such as {@code setpriv ...}).
   */
  public static ChildJvm start(String name, List<String> wrapper, Class<?> mainClass,
      List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>(wrapper);
    command.add(javaCommand());
    // Small and quick to start: these children do little work and many of them start.
    command.add("-Xshare:auto");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:-UsePerfData");
    command.add("-Xmx64m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    return new ChildJvm(name, builder.start());
  }

  /** The {@code java} launcher of this JVM. */
  static String javaCommand() {
    return ProcessHandle.current().info().command()
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  /** The child's pid. */
  public long pid() {
    return process.pid();
  }

  /** The child's process. */
  public Process process() {
    return process;
  }

  /** Sends one line to the child's standard input. */
  public void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /**
   * Waits for the first line starting with {@code prefix} (protocol lines only: those starting
   * with {@code "@"}), and returns its rest after the prefix; lines before it are consumed.
   *
   * @throws AssertionError when the child ends first or the timeout passes; the message shows the
   *     end of the child's output
   */
  public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (monitor) {
      while (true) {
        while (!lines.isEmpty()) {
          String line = lines.remove(0);
          if (line.startsWith(prefix)) {
            return line.substring(prefix.length()).strip();
          }
        }
        if (ended) {
          throw new AssertionError(name + " ended (exit " + exitText() + ") before saying '"
              + prefix + "'\n" + tail());
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          throw new AssertionError(name + " did not say '" + prefix + "' within " + timeout + "\n"
              + tail());
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, remaining);
      }
    }
  }

  /** Waits for the child to end and returns its exit status. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " did not end within " + timeout + "\n" + tail());
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return process.exitValue();
  }

  /** Sends {@code SIGKILL} and waits until the process is gone (reaped). */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " (pid " + pid() + ") survived SIGKILL for 30 s");
    }
  }

  /** The last lines the child printed, for failure messages. */
  public String tail() {
    synchronized (monitor) {
      return "---- last output of " + name + " (pid " + pid() + ") ----\n"
          + String.join("\n", tail) + "\n----";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + pid() + ")";
  }

  private String exitText() {
    return process.isAlive() ? "not yet" : Integer.toString(process.exitValue());
  }

  private void readOutput() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        synchronized (monitor) {
          if (line.startsWith("@")) {
            lines.add(line);
          }
          tail.addLast(line);
          if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
          }
          monitor.notifyAll();
        }
      }
    } catch (IOException e) {
      // the child is gone
    } finally {
      synchronized (monitor) {
        ended = true;
        monitor.notifyAll();
      }
    }
  }
}
