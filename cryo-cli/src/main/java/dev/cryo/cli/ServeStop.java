package dev.cryo.cli;

import dev.cryo.commander.Commander;
import dev.cryo.commander.DrainReport;
import dev.cryo.control.StopMode;
import dev.cryo.front.Front;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * How a {@code cryo serve} stops. The first SIGTERM or SIGINT (Ctrl-C), or a {@code drain} request
 * of {@code cryo stop}, drains: the commander admits nothing new, freezes everyone and commits the
 * reboot data, then the port closes and the serve exits 0. A second signal during the drain, or a
 * {@code now} request, stops at once (nothing more is frozen). A signal before the commander runs
 * stops at once, as there is nothing to drain.
 *
 * <p>A drain that cannot write every user (a full disk) is refused by the commander: nobody was
 * quit, nothing committed or deleted, and the run serves on. The serve then prints who stays and
 * why and what to do, keeps serving them, and takes the next signal or {@code cryo stop} as a new
 * drain (not as a stop now): it does not exit, since its workers hold the only copy of those users.
 * A drain that quit its workers but could not commit the reboot data exits
 * {@link ExitCodes#CANNOT_WRITE}. A signal the JVM found ignored at start (a background
 * job's SIGINT, {@code nohup}) stays ignored.
 *
 * <p>Threads: signals arrive on the JVM's signal thread and requests on the commander's; both only
 * start work on a thread of their own, so neither blocks. The drain prints its progress on stderr.
 */
final class ServeStop {

  private final AtomicReference<Commander> running;
  private final AtomicReference<Front> serving;
  private final Runnable now;
  private final CountDownLatch stopped;
  private final Duration grace;
  private final PrintWriter err;
  private final AtomicInteger asked = new AtomicInteger();
  private volatile int exitCode = ExitCodes.OK;

  ServeStop(AtomicReference<Commander> running, AtomicReference<Front> serving, Runnable now,
      CountDownLatch stopped, Duration grace, PrintWriter err) {
    this.running = running;
    this.serving = serving;
    this.now = now;
    this.stopped = stopped;
    this.grace = grace;
    this.err = err;
  }

  /** Takes SIGTERM and SIGINT from the JVM's default (exit at once) for this class's meaning. */
  void installSignals() {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal signal = new Signal(name);
        Signal.handle(signal, received -> signalled("SIG" + received.getName()));
      } catch (IllegalArgumentException e) {
        // The JVM keeps this signal for itself (-Xrs) or the platform lacks it: its default stays.
      }
    }
  }

  /** A stop request read by the commander's tick ({@code cryo stop}). */
  void requested(StopMode mode) {
    say("cryo: a stop (" + mode.code() + ") was requested with cryo stop");
    if (mode == StopMode.NOW) {
      stopNow("cryo stop --mode now");
    } else {
      begin("cryo stop");
    }
  }

  private void signalled(String name) {
    begin(name);
  }

  /** The first ask drains (or stops at once before the run serves); a later one stops at once. */
  private void begin(String why) {
    int count = asked.incrementAndGet();
    Commander commander = running.get();
    if (count > 1) {
      stopNow(why + " again during the drain");
      return;
    }
    if (commander == null) {
      stopNow(why + " before the run served");
      return;
    }
    say("cryo: " + why + ": draining (a second Ctrl-C or SIGTERM stops at once)");
    Thread.ofPlatform().name("cryo-drain").start(() -> drain(commander));
  }

  private void drain(Commander commander) {
    boolean servesOn = false;
    try {
      DrainReport report = commander.drain(grace, this::say);
      if (report.refused()) {
        // Nobody was quit and the run serves on: the users who stay are alive only here.
        say(report.summary());
        asked.set(0); // the next Ctrl-C, SIGTERM or cryo stop drains again
        servesOn = true;
        return;
      }
      if (!report.committed()) {
        exitCode = ExitCodes.CANNOT_WRITE;
      }
      Front front = serving.getAndSet(null);
      if (front != null) {
        front.close();
      }
      running.compareAndSet(commander, null);
      say(report.summary());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IllegalStateException e) {
      // closed meanwhile by a stop now: it said so
    } finally {
      if (!servesOn) {
        now.run(); // closes what is left; idempotent
        stopped.countDown();
      }
    }
  }

  /**
   * The exit code of the serve once it stopped: {@link ExitCodes#OK}, or
   * {@link ExitCodes#CANNOT_WRITE} when its drain could not commit the reboot data (the journal is
   * kept, and the next start adopts it).
   */
  int exitCode() {
    return exitCode;
  }

  private void stopNow(String why) {
    say("cryo: " + why + ": stopping now; nothing more is frozen, users that were awake lose their"
        + " state and the next start wipes the freezer");
    Thread.ofVirtual().start(now);
  }

  private synchronized void say(String line) {
    err.println(line);
    err.flush();
  }
}
