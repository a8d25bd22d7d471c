package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireListener;
import dev.cryo.wire.protocol.Methods;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One attempt to start a worker, up to its presentation: bind the worker's socket, spawn its JVM,
 * accept its one connection, open the wire, and wait for its {@code present} call — all within the
 * presentation timeout, counted from the bind. Whatever fails (no connection, the process exiting,
 * the wire closing on a hostile first frame, the time running out), everything of the attempt is
 * undone: the wire closed (or, before a wire was opened, the connection closed by the listener's
 * close), the process group killed. The socket file is unlinked in every case (after a
 * presentation the wire owns the connection). Used once, by one thread.
 */
final class WorkerStart {

  /**
   * The exit status of a worker that can never start as spawned (its application cannot be loaded;
   * the worker's {@code WorkerMain.CANNOT_START}): no second attempt is made.
   */
  static final int CANNOT_START = 78;


  private final CommanderConfig config;
  private final WorkerHandle handle;
  private final Routing routing;
  private final WorkerLink.Events events;
  private final RunHome home;
  private final String logs;

  /**
   * An attempt whose worker's output is appended to {@code logs/NAME.log} of {@code home}
   * ({@link RunHome#withPrivateFile}: created 0600, judged by the home's rule).
   */
  WorkerStart(CommanderConfig config, WorkerHandle handle, Routing routing,
      WorkerLink.Events events, RunHome home, String logs) {
    this.config = config;
    this.handle = handle;
    this.routing = routing;
    this.events = events;
    this.home = home;
    this.logs = logs;
  }

  /** The log's name in its directory. */
  static String logName(String worker) {
    return WorkerLogs.logName(worker);
  }

  /**
   * Runs the attempt.
   *
   * @param spawned told of the process as soon as it runs; false stops the attempt (the process is
   *     killed): the commander is closing
   * @param presentedProcess told of the process once the worker presented itself
   * @return null when the worker presented itself, else why the attempt failed
   */
  String run(Predicate<WorkerProcess> spawned, Consumer<WorkerProcess> presentedProcess) {
    long deadline = System.nanoTime() + config.presentation().toNanos();
    WireListener listener = null;
    WorkerProcess process = null;
    Wire wire = null;
    boolean presented = false;
    try {
      listener = WireListener.bind(Path.of(handle.spawn().wire()));
      String logName = logName(handle.name());
      process = home.withPrivateFile(logs, logName, log -> WorkerProcess.start(
          config.workerCommand(), handle.spawn(), log, home.shown(logs + "/" + logName)));
      if (!spawned.test(process)) {
        return "the commander is closing";
      }
      // The connection stays the listener's until it is taken here: should the time run out
      // before, the listener's close closes it (a connection taken by a waiting thread that
      // nobody reads any more would stay open).
      CompletableFuture<Void> connected = listener.connected();
      CompletableFuture.anyOf(connected, process.onExit()).get(remaining(deadline),
          TimeUnit.NANOSECONDS);
      if (!connected.isDone()) {
        return "its process exited with status " + process.exitStatus() + " before it connected";
      }
      SocketChannel channel = listener.accept(Duration.ofNanos(remaining(deadline)));
      WorkerLink link = new WorkerLink(handle, routing, events, config.clock());
      try {
        wire = Wire.open(channel, handle.name(), link, Methods.COMMANDER_CALLS,
            Methods.COMMANDER_EVENTS, WireLimits.defaults());
      } catch (RuntimeException e) {
        channel.close(); // no wire owns it
        throw e;
      }
      link.attach(wire);
      handle.attach(wire);
      CompletableFuture.anyOf(handle.presented(), process.onExit(), link.closed())
          .get(remaining(deadline), TimeUnit.NANOSECONDS);
      if (!handle.presented().isDone()) {
        return link.closed().isDone() ? "its wire closed before it presented itself ("
            + link.closed().join() + ")" : "its process exited with status "
            + process.exitStatus() + " before it presented itself";
      }
      presented = true;
      presentedProcess.accept(process);
      return null;
    } catch (TimeoutException e) {
      if (handle.endAttempt()) { // it presented itself as the wait ran out: it is running
        presented = true;
        presentedProcess.accept(process);
        return null;
      }
      return "it did not present itself within " + config.presentation()
          + "; its process group was killed";
    } catch (ExecutionException e) {
      return "no connection came to its socket: " + e.getCause().getMessage();
    } catch (IOException | RuntimeException e) {
      return "it could not be spawned: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the start was interrupted";
    } finally {
      if (listener != null) {
        listener.close();
      }
      if (!presented) {
        if (wire != null) {
          wire.close();
        }
        if (process != null) {
          process.killGroup();
        }
      }
    }
  }

  private static long remaining(long deadlineNanos) {
    return Math.max(1, deadlineNanos - System.nanoTime());
  }
}
