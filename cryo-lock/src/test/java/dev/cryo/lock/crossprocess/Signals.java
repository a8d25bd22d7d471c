package dev.cryo.lock.crossprocess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Stopping, continuing and terminating processes ({@code SIGSTOP}, {@code SIGCONT}, {@code
 * SIGTERM}), and reading their start
 * time, straight from the operating system ({@code kill(1)} and {@code /proc}), independently of the
 * code under test. Linux only.
 */
public final class Signals {

  private Signals() {}

  /** Sends {@code SIGSTOP} and waits until every thread of the process has stopped. */
  public static void stop(long pid) throws IOException, InterruptedException {
    signal("-STOP", pid);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!allThreadsStopped(pid)) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("pid " + pid + " did not stop within 10 s");
      }
      Thread.sleep(1);
    }
  }

  /**
   * Sends {@code SIGTERM}. Unlike {@link Process#destroy()}, this leaves the pipes to the process
   * open, so that the process sees the signal alone.
   */
  public static void terminate(long pid) throws IOException, InterruptedException {
    signal("-TERM", pid);
  }

  /** Sends {@code SIGCONT}. */
  public static void resume(long pid) throws IOException, InterruptedException {
    signal("-CONT", pid);
  }

  /**
   * The start of process {@code pid} in clock ticks since boot (field 22 of {@code
   * /proc/PID/stat}), read without the code under test.
   */
  public static long startTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"),
        StandardCharsets.ISO_8859_1);
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[19]);
  }

  private static boolean allThreadsStopped(long pid) throws IOException {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path thread : threads) {
        String stat;
        try {
          stat = Files.readString(thread.resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
          continue; // a thread that ended
        }
        char state = stat.charAt(stat.lastIndexOf(')') + 2);
        if (state != 'T' && state != 't' && state != 'Z' && state != 'X') {
          return false;
        }
      }
      return true;
    } catch (NoSuchFileException e) {
      return true; // the process is gone
    }
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid))
        .redirectErrorStream(true).start();
    byte[] output = kill.getInputStream().readAllBytes();
    if (kill.waitFor() != 0) {
      throw new IOException("kill " + signal + " " + pid + " failed: "
          + new String(output, StandardCharsets.UTF_8).strip());
    }
  }
}
