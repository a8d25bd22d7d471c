package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start's line "worker X is the reception" names the worker placement sends new connections
 * to (the oldest running one, as the status shows it), not the worker whose start happened to
 * complete first: the test holds the first worker to log its presentation between its presentation
 * and the completion of its start (inside that log line) until the start's line is written, so
 * that the other worker's start completes first. The worker that logs first is not always the one
 * presented first, so the start is tried up to {@link #ATTEMPTS} times, until the held worker is
 * the reception; every attempt's line must name the reception.
 */
class ReceptionLineTest {

  private static final Pattern PRESENTED = Pattern.compile("worker (main_\\d+) \\(pid \\d+\\)"
      + " presented itself");

  @TempDir Path home;

  // Strong references: a logger that nobody holds may be collected with its handler.
  private final Logger supervisorLog = Logger.getLogger(Supervisor.class.getName());
  private final Logger commanderLog = Logger.getLogger(Commander.class.getName());
  private final List<Handler> handlers = new CopyOnWriteArrayList<>();

  @AfterEach
  void removeHandlers() {
    for (Handler handler : handlers) {
      supervisorLog.removeHandler(handler);
      commanderLog.removeHandler(handler);
    }
  }

  /** Up to this many starts, until one holds the reception while the other start completes. */
  private static final int ATTEMPTS = 5;

  @Test
  void theStartsLineNamesTheReceptionPlacementTakes() throws Exception {
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (startOnce(home.resolve("run" + attempt))) {
        System.out.println("the reception was held until the line in attempt " + attempt);
        return;
      }
    }
    // The line was right in every attempt; none happened to hold the reception (the worker that
    // logs its presentation first is not always the one presented first).
    System.out.println("no attempt held the reception until the line");
  }

  /**
   * One start: checks its line names the status's reception.
   *
   * @return whether the reception was the worker held until the line (the case the old line got
   *     wrong: the other worker's start completed first)
   */
  private boolean startOnce(Path run) throws Exception {
    CountDownLatch lineWritten = new CountDownLatch(1);
    AtomicReference<String> firstPresented = new AtomicReference<>();
    AtomicReference<String> line = new AtomicReference<>();
    List<String> held = new CopyOnWriteArrayList<>();
    Handler presentations = on(supervisorLog, record -> {
      Matcher presented = PRESENTED.matcher(record.getMessage());
      if (presented.find() && firstPresented.compareAndSet(null, presented.group(1))) {
        // The first to log its presentation is running; its start completes only once this
        // returns. Within the worker's own wait for its presentation's reply (10 s).
        try {
          if (lineWritten.await(7, TimeUnit.SECONDS)) {
            held.add(presented.group(1));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    Handler lines = on(commanderLog, record -> {
      if (record.getMessage().contains("is the reception")
          || record.getMessage().contains("receives new connections")) {
        line.set(record.getMessage());
        lineWritten.countDown();
      }
    });
    handlers.add(presentations);
    handlers.add(lines);
    CommanderConfig config = FakeWorkers.config(run).workers(2)
        .presentation(Duration.ofSeconds(60)).build();
    try (Commander commander = Commander.start(config)) {
      assertThat(line.get()).isNotNull();
      Status.WorkerStatus reception = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow();
      assertThat(line.get()).endsWith("worker " + reception.name() + " is the reception");
      return held.contains(reception.name());
    } finally {
      supervisorLog.removeHandler(presentations);
      commanderLog.removeHandler(lines);
    }
  }

  @Test
  void theLineSaysSoWhenNoWorkerRuns() {
    Verdict none = new Placement(10, 2, 1, java.util.OptionalLong::empty)
        .reception(List.of(new WorkerView("main_0001", 1, false, 0, 0, 0)));
    assertThat(Commander.receptionLine(home, none)).contains("no worker receives new"
        + " connections yet").doesNotContain("is the reception");
  }

  private static Handler on(Logger logger, java.util.function.Consumer<LogRecord> action) {
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getMessage() != null) {
          action.accept(record);
        }
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    logger.addHandler(handler);
    return handler;
  }
}
