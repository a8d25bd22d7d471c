package dev.cryo.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code cryo} command in a child JVM ({@code java -cp <test classpath> dev.cryo.cli.Cryo ...}),
 * with its standard output and error in files. {@link #close} kills it and whatever it started.
 */
final class ChildCryo implements AutoCloseable {

  private final Process process;
  private final Path out;
  private final Path err;
  private final List<ProcessHandle> descendants = new ArrayList<>();

  private ChildCryo(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /** Starts {@code cryo args...} in a child JVM whose output goes to files in {@code scratch}. */
  static ChildCryo start(Path scratch, String... args) throws IOException {
    Path out = Files.createTempFile(scratch, "cryo-out", ".txt");
    Path err = Files.createTempFile(scratch, "cryo-err", ".txt");
    Process process = new ProcessBuilder(command(args))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    return new ChildCryo(process, out, err);
  }

  /**
   * Starts {@code mainClass} (a test main that runs the cryo command) through {@code wrapper} (a
   * command that runs the rest of its arguments), output in files in {@code scratch}.
   */
  static ChildCryo start(Path scratch, List<String> wrapper, Class<?> mainClass, String... args)
      throws IOException {
    Path out = Files.createTempFile(scratch, "cryo-out", ".txt");
    Path err = Files.createTempFile(scratch, "cryo-err", ".txt");
    List<String> command = new ArrayList<>(wrapper);
    command.addAll(command(mainClass, args));
    Process process = new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    return new ChildCryo(process, out, err);
  }

  /** The command line that runs {@code cryo args...} in a child JVM. */
  static List<String> command(String... args) {
    return command(Cryo.class, args);
  }

  private static List<String> command(Class<?> mainClass, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", classpath(), mainClass.getName()));
    command.addAll(List.of(args));
    return command;
  }

  Process process() {
    return process;
  }

  long pid() {
    return process.pid();
  }

  /** Waits for the child to exit (bounded) and returns its exit code. */
  int exitCode() throws InterruptedException, IOException {
    if (!process.waitFor(Poll.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("cryo (pid " + pid() + ") did not exit within " + Poll.PATIENCE
          + "; stderr: " + err());
    }
    return process.exitValue();
  }

  String out() throws IOException {
    return Files.readString(out);
  }

  String err() throws IOException {
    return Files.readString(err);
  }

  /** Remembers a process the child started, so that {@link #close} kills it too. */
  void adopt(long pid) {
    ProcessHandle.of(pid).ifPresent(descendants::add);
  }

  @Override
  public void close() {
    descendants.addAll(process.descendants().toList());
    process.destroyForcibly();
    for (ProcessHandle handle : descendants) {
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      handle.destroyForcibly();
    }
  }

  /** Sends {@code signal} (a name such as TERM, KILL) to {@code pid} with kill(1). */
  static void kill(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
        .redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -s " + signal + " " + pid + " failed: " + output);
    }
  }

  /**
   * The test's classpath: every module the CLI may load (cryo serve loads the commander, the
   * front, the worker and the demo).
   */
  private static String classpath() {
    return System.getProperty("java.class.path");
  }
}
