package dev.cryo.cli;

import java.io.IOException;
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
 * <p>SIGINT is not forwarded when the terminal has already delivered it to the command: when cryo
 * and the command share the process group that is the terminal's foreground group (Ctrl-C signals
 * that whole group), forwarding would interrupt the command twice. A signal the JVM finds ignored
 * at start (as {@code nohup} and background jobs do) stays ignored, for cryo and the command alike.
 *
 * <p>Forwarding runs {@code kill -s NAME PID}, since the JDK can send only SIGTERM and SIGKILL;
 * SIGTERM falls back to {@link Process#destroy()} when {@code kill} cannot be run.
 */
final class SignalForwarding implements AutoCloseable {

  private static final List<String> FORWARDED = List.of("INT", "TERM", "HUP");

  private final Thread waiter;
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  private Process child; // guarded by this
  private Signal pending; // guarded by this
  private boolean acquiring = true; // guarded by this

  private SignalForwarding(Thread waiter) {
    this.waiter = waiter;
  }

  /**
   * Installs the handlers; until {@link #start} they interrupt {@code waiter} (which waits for the
   * lock) and remember the signal.
   */
  static SignalForwarding install(Thread waiter) {
    SignalForwarding forwarding = new SignalForwarding(waiter);
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
    child = builder.start();
    return child;
  }

  /** Puts back the handlers that were there before {@link #install}. */
  @Override
  public void close() {
    previous.forEach(Signal::handle);
  }

  private void received(Signal signal) {
    Process target;
    synchronized (this) {
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
    if (!target.isAlive()
        || (signal.getName().equals("INT") && terminalDeliveredToGroupOf(target.pid()))) {
      return;
    }
    send(signal, target);
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

  /**
   * Whether a SIGINT to cryo was most likely Ctrl-C, which the terminal sends to its whole foreground
   * process group, the command included: cryo is in that group, and so is the command.
   */
  private static boolean terminalDeliveredToGroupOf(long pid) {
    long[] self = groupAndForeground("self");
    long[] command = groupAndForeground(Long.toString(pid));
    return self != null && command != null
        && self[1] > 0 && self[0] == self[1] && command[0] == self[0];
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
}
