package dev.cryo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code cryo stop --wait}: after a request was written, waits for what the run made of it. The
 * run ended ({@code run.json} marked ended, or another run there): exit 0. The request is gone
 * while the same run still runs: the run withdrew it because it refused the drain (a user could
 * not be written; it serves on), and the line names who stays and why from the
 * {@code drain_refused} event written since the wait began, or says that the event still waits
 * for space: exit
 * {@link ExitCodes#CANNOT_WRITE}. The server's process gone without ending its run: exit
 * {@link ExitCodes#UNAVAILABLE}. Polls every 100 ms; only reads.
 */
final class StopWait {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long POLL_MILLIS = 100;

  private StopWait() {}

  /**
   * How long the run's event log is now: taken before the request is published, so that only a
   * refusal written after it is named.
   */
  static long eventsSeen(RunDirectory directory) {
    try {
      return Files.size(directory.path().resolve("events.jsonl"));
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * Waits as the class says; prints one line; returns the exit code.
   *
   * @param seen the event log's length before the request was published ({@link #eventsSeen})
   */
  static int until(RunDirectory directory, long seen, PrintWriter out)
      throws IOException, InterruptedException {
    String invocation = directory.loadRunState().map(RunState::invocationId).orElse(null);
    Path events = directory.path().resolve("events.jsonl");
    while (true) {
      Optional<RunState> run = directory.loadRunState();
      if (run.isEmpty() || run.get().hasEnded() || !run.get().invocationId().equals(invocation)) {
        out.println("stopped: the run " + invocation + " ended");
        return ExitCodes.OK;
      }
      if (!directory.readStopRequest().present()) {
        out.println("refused: " + refusal(events, seen));
        return ExitCodes.CANNOT_WRITE;
      }
      if (ProcessHandle.of(run.get().pid()).map(p -> !p.isAlive()).orElse(true)) {
        out.println("gone: the server's process " + run.get().pid() + " is gone without ending"
            + " its run (killed?); the next cryo serve on this directory adopts what it left");
        return ExitCodes.UNAVAILABLE;
      }
      Thread.sleep(POLL_MILLIS); // a poll of files another process writes: no signal to wait on
    }
  }

  /** The run's refusal as its last {@code drain_refused} event says it. */
  private static String refusal(Path events, long seen) {
    String none = "the run refused the drain and serves on: a user could not be written (the"
        + " disk refused); its drain_refused event is not on disk yet (it waits for space), cryo"
        + " serve's output names who stays; " + dev.cryo.commander.DrainReport.WHAT_TO_DO;
    try {
      byte[] bytes = Files.readAllBytes(events);
      int from = bytes.length >= seen ? (int) seen : 0; // rotated meanwhile: all of it
      List<String> lines = new String(bytes, from, bytes.length - from,
          java.nio.charset.StandardCharsets.UTF_8).lines().toList();
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).contains("\"drain_refused\"")) {
          continue;
        }
        JsonNode event = JSON.readTree(lines.get(i));
        return "the run refused the drain and serves on: " + event.path("staying").size()
            + " could not be written and stay awake and served on their workers "
            + event.path("staying") + "; nothing was committed or deleted; "
            + event.path("what_to_do").asText();
      }
    } catch (IOException | RuntimeException e) {
      return none;
    }
    return none;
  }
}
