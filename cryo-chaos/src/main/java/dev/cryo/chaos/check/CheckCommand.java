package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code check}: judges a run's history with its event logs and prints the verdict as text.
 * Exits {@value #VALID} when the run is valid, {@value #ANOMALIES} when it shows any anomaly, and
 * {@value #UNREADABLE} (with one line on the error stream saying what could not be read) when an
 * input is unreadable or an output cannot be written, and 64 when the command line is wrong.
 */
@Command(name = "check", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = {"Checks a run's history against the demo's registers and the event logs:"
        + " lost writes, two live copies, time travel, unexplained failures, placements served"
        + " twice.", "Exit status: 0 valid, 1 anomalies, 2 unreadable input, 64 a wrong command line."})
public final class CheckCommand implements Callable<Integer> {

  /** The exit status of a valid run. */
  public static final int VALID = 0;
  /** The exit status of a run with anomalies. */
  public static final int ANOMALIES = 1;
  /** The exit status when an input cannot be read (or an output written). */
  public static final int UNREADABLE = 2;

  @Option(names = "--history", required = true, paramLabel = "FILE",
      description = "The run's history (JSON lines).")
  private Path history;

  @Option(names = "--events", paramLabel = "FILE",
      description = "An events.jsonl of the run; repeat it for each serve, in order.")
  private List<Path> events = new ArrayList<>();

  @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s",
      converter = DurationConverter.class,
      description = "How long after a fault failures are still explained: seconds (10),"
          + " or with a unit (10s, 500ms, 2m), or ISO-8601 (PT10S). Default: ${DEFAULT-VALUE}.")
  private Duration grace;

  @Option(names = "--timeline", paramLabel = "FILE",
      description = "Also writes the timeline: one self-contained HTML file.")
  private Path timeline;

  @Option(names = "--json", paramLabel = "FILE", description = "Also writes the verdict as JSON.")
  private Path json;

  @Spec
  private CommandSpec spec;

  /** A command for picocli to fill. */
  public CheckCommand() {}

  /** Checks, prints the verdict, writes the files asked for; returns the exit status. */
  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<Entry> entries;
    try {
      entries = History.read(history);
    } catch (IOException e) {
      return unreadable(err, "the history " + history + " could not be read: " + reason(e));
    }
    EventLog log;
    try {
      log = EventLog.read(events);
    } catch (IOException e) {
      return unreadable(err, "an event log could not be read: " + reason(e));
    }
    Verdict verdict;
    try {
      verdict = Checker.check(entries, log, grace);
    } catch (IllegalArgumentException e) {
      return unreadable(err, "the history " + history + " is not one: " + e.getMessage());
    }
    out.print(verdict.text());
    out.flush();
    try {
      if (json != null) {
        verdict.writeJson(json);
      }
      if (timeline != null) {
        Timeline.write(entries, verdict, timeline);
      }
    } catch (IOException e) {
      return unreadable(err, "an output could not be written: " + reason(e));
    }
    return verdict.valid() ? VALID : ANOMALIES;
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return e.getMessage() + ": no such file";
    }
    if (e instanceof AccessDeniedException) {
      return e.getMessage() + ": permission denied";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  private static int unreadable(PrintWriter err, String message) {
    err.println("cryo-chaos check: " + message.replace('\n', ' '));
    err.flush();
    return UNREADABLE;
  }
}
