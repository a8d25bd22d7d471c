package dev.cryo.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Hands SIGINT, SIGTERM and SIGHUP received by {@code cryo lock run} to the command it runs, so that
 * Ctrl-C or {@code kill} reaches the command, cryo waits for it to end, releases the lock and exits
 * with its status. Without this the JVM would run its shutdown hooks and release the lock while the
 * command still runs.
 *
 * <p>A signal that arrives before the command starts is kept: the wait for the lock is interrupted
 * and the command is never started. Starting the command and registering it happen under this
 * object's monitor, so a signal arriving meanwhile is forwarded as soon as the command exists.
 *
 * <h2>SIGINT, once</h2>
 *
 * <p>A SIGINT may come to cryo alone ({@code kill -INT} from another terminal): it must be
 * forwarded. Or it may come to cryo's whole process group (Ctrl-C in the terminal, whose foreground
 * group cryo and the command share, or {@code kill -INT -PGID}): the command has it already, and
 * must not get it twice (many programs take a second Ctrl-C as "quit now"). The JDK does not say
 * who sent a signal. So when cryo starts in a terminal's foreground group it also starts a
 * sentinel: a small {@code sh} in the same group that reports each SIGINT it gets ({@code i}) and
 * answers a SIGUSR1 ({@code m}). On a SIGINT cryo sends the sentinel SIGUSR1 and reads its answer:
 * an {@code i} before the {@code m} means the group got this SIGINT (the kernel gives a group
 * signal to every member before any of them can act on it, and the shell runs pending traps in
 * signal order, SIGINT before SIGUSR1), so it is not forwarded; otherwise it is. When the command
 * has left cryo's process group a group signal does not reach it, and it is forwarded. Without a
 * sentinel (it could not start, or died) a SIGINT is forwarded unless cryo and the command share the
 * terminal's foreground group, as the best guess. With {@code CRYO_DEBUG=1}, cryo says on stderr
 * what it did with each SIGINT.
 *
 * <p>A signal the JVM finds ignored at start (as {@code nohup} and background jobs do) stays
 * ignored, for cryo and the command alike.
 *
 * <p>Forwarding runs {@code kill -s NAME PID}, since the JDK can send only SIGTERM and SIGKILL;
 * SIGTERM falls back to {@link Process#destroy()} when {@code kill} cannot be run.
 */
final class SignalForwarding implements AutoCloseable {

  private static final List<String> FORWARDED = List.of("INT", "TERM", "HUP");

  private final Thread waiter;
  private final boolean debug;
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  private Sentinel sentinel; // guarded by this
  private Process child; // guarded by this
  private Signal pending; // guarded by this
  private boolean acquiring = true; // guarded by this

  private SignalForwarding(Thread waiter, boolean debug) {
    this.waiter = waiter;
    this.debug = debug;
  }

  /**
   * Installs the handlers; until {@link #start} they interrupt {@code waiter} (which waits for the
   * lock) and remember the signal.
   */
  static SignalForwarding install(Thread waiter) {
    SignalForwarding forwarding = new SignalForwarding(waiter, Cryo.debugFromEnvironment());
    for (String name : FORWARDED) {
      try {
        Signal signal = new Signal(name);
        forwarding.previous.put(signal, Signal.handle(signal, forwarding::received));
      } catch (IllegalArgumentException e) {
        // The JVM keeps this signal for itself (-Xrs) or the platform lacks it: nothing to forward.
      }
    }
    return forwarding;
  }

  /** The first signal received before the command started, or null. */
  synchronized Signal pending() {
    return pending;
  }

  /**
   * Starts the command unless a signal came first; from then on, signals go to it. Called on the
   * waiter thread, which no longer gets interrupted.
   *
   * @return the started process, or null when a signal arrived before it could start
   */
  synchronized Process start(ProcessBuilder builder) throws IOException {
    acquiring = false;
    Thread.interrupted(); // an interrupt meant for the lock wait that arrived after it ended
    if (pending != null) {
      return null;
    }
    if (sentinel == null && inTheForegroundGroup("self")) {
      sentinel = Sentinel.start();
      debug(sentinel == null ? "no sentinel could start: a SIGINT is forwarded unless cryo and"
          + " the command share the terminal's foreground group"
          : "watching for SIGINTs to the whole process group (sentinel pid " + sentinel.pid()
              + ")");
    }
    child = builder.start();
    return child;
  }

  /** Puts back the handlers that were there before {@link #install}, and ends the sentinel. */
  @Override
  public void close() {
    previous.forEach(Signal::handle);
    Sentinel ending;
    synchronized (this) {
      ending = sentinel;
      sentinel = null;
    }
    if (ending != null) {
      ending.close();
    }
  }

  private void received(Signal signal) {
    Process target;
    Sentinel watching;
    synchronized (this) {
      watching = sentinel;
      if (child == null) {
        if (pending == null) {
          pending = signal;
        }
        if (acquiring) {
          waiter.interrupt();
        }
        return;
      }
      target = child;
    }
    if (!target.isAlive()) {
      return;
    }
    if (signal.getName().equals("INT") && sameGroup(target.pid())) {
      Boolean toTheGroup = watching == null ? null : watching.groupGotTheLastSigint();
      if (Boolean.TRUE.equals(toTheGroup)) {
        debug("SIGINT not forwarded: it came to the whole process group, the command has it");
        return;
      }
      if (toTheGroup == null && inTheForegroundGroup("self")) {
        debug("SIGINT not forwarded: no sentinel answered, and cryo and the command share the"
            + " terminal's foreground group, whose Ctrl-C reaches the command");
        return;
      }
    }
    debug("SIG" + signal.getName() + " forwarded to pid " + target.pid());
    send(signal, target);
  }

  private void debug(String line) {
    if (debug) {
      System.err.println("cryo lock run: " + line);
      System.err.flush();
    }
  }

  private static void send(Signal signal, Process target) {
    try {
      Process kill = new ProcessBuilder("kill", "-s", signal.getName(), Long.toString(target.pid()))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (kill.waitFor() == 0 || !target.isAlive()) {
        return;
      }
    } catch (IOException e) {
      // no kill(1): fall back below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (signal.getName().equals("TERM")) {
      target.destroy();
    } else {
      System.err.println("cryo lock run: could not forward SIG" + signal.getName()
          + " to pid " + target.pid() + ": kill(1) failed");
    }
  }

  /** Whether process {@code pid} is in cryo's process group (a group signal reaches it too). */
  private static boolean sameGroup(long pid) {
    long[] self = groupAndForeground("self");
    long[] command = groupAndForeground(Long.toString(pid));
    return self != null && command != null && command[0] == self[0];
  }

  /** Whether process {@code id} is in the foreground process group of its terminal. */
  private static boolean inTheForegroundGroup(String id) {
    long[] group = groupAndForeground(id);
    return group != null && group[1] > 0 && group[0] == group[1];
  }

  /** {process group, terminal foreground process group} from {@code /proc/ID/stat}, or null. */
  private static long[] groupAndForeground(String id) {
    try {
      String stat = Files.readString(Path.of("/proc", id, "stat"), StandardCharsets.ISO_8859_1);
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // state ppid pgrp session tty_nr tpgid ...
      return new long[] {Long.parseLong(fields[2]), Long.parseLong(fields[5])};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The sentinel of {@link SignalForwarding}: a {@code sh} in cryo's process group that says
   * {@code i} on each SIGINT and {@code m} on each SIGUSR1, and ends within a second of cryo.
   */
  private static final class Sentinel {

    private static final String SCRIPT = ""
        + "trap 'echo i' INT; trap 'echo m' USR1; parent=$1; echo ready; "
        + "while kill -0 \"$parent\" 2>/dev/null; do sleep 1 & wait $!; done";

    private final Process process;
    private final BufferedReader answers;

    private Sentinel(Process process) {
      this.process = process;
      this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.US_ASCII));
    }

    /** A running sentinel whose traps are set, or null when none could start. */
    static Sentinel start() {
      try {
        Process process = new ProcessBuilder("/bin/sh", "-c", SCRIPT, "cryo-sentinel",
            Long.toString(ProcessHandle.current().pid()))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        Sentinel sentinel = new Sentinel(process);
        if ("ready".equals(sentinel.answers.readLine())) {
          return sentinel;
        }
        process.destroyForcibly();
      } catch (IOException e) {
        // no sentinel: the caller guesses
      }
      return null;
    }

    long pid() {
      return process.pid();
    }

    /**
     * Whether the SIGINT cryo just got came to the whole group: the sentinel got one before the
     * SIGUSR1 sent now. Null when the sentinel does not answer (it died).
     */
    synchronized Boolean groupGotTheLastSigint() {
      try {
        Process kill = new ProcessBuilder("kill", "-s", "USR1", Long.toString(process.pid()))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (kill.waitFor() != 0) {
          return null;
        }
        boolean sigint = false;
        for (String line; (line = answers.readLine()) != null; ) {
          if (line.equals("m")) {
            return sigint;
          }
          sigint |= line.equals("i");
        }
        return null;
      } catch (IOException e) {
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    void close() {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
