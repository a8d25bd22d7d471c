package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.check.SimulatedRun.Call;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.Function;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code check} command line: its output, files and exit statuses. */
class CheckCommandTest {

  @TempDir
  Path directory;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int check(String... arguments) {
    return new CommandLine(new CheckCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute(arguments);
  }

  private Path history(List<Entry> entries) throws IOException {
    Path file = directory.resolve("history-" + System.nanoTime() + ".jsonl");
    try (History history = History.open(file)) {
      entries.forEach(history::append);
    }
    return file;
  }

  private Path events(SimulatedRun run) throws IOException {
    Path file = directory.resolve("events.jsonl");
    List<String> lines = new ArrayList<>();
    for (Event event : run.eventLog().events()) {
      lines.add(History.JSON.writeValueAsString(event.fields()));
    }
    Files.write(file, lines);
    return file;
  }

  @Test
  void aValidRunExitsZeroAndWritesTheFilesAskedFor() throws IOException {
    Scenario scenario = new Scenario();
    Path json = directory.resolve("verdict.json");
    Path timeline = directory.resolve("timeline.html");
    int status = check("--history", history(scenario.run.history()).toString(), "--events",
        events(scenario.run).toString(), "--json", json.toString(), "--timeline",
        timeline.toString());
    assertThat(status).as(out + "\n" + err).isEqualTo(CheckCommand.VALID);
    assertThat(out.toString()).startsWith("VALID");
    assertThat(History.JSON.readTree(json.toFile()).get("valid").asBoolean()).isTrue();
    assertThat(Files.readString(timeline)).contains("<svg");
  }

  @Test
  void withoutItsEventLogTheDocumentedLossIsAnAnomaly() throws IOException {
    Scenario scenario = new Scenario();
    int status = check("--history", history(scenario.run.history()).toString());
    assertThat(status).isEqualTo(CheckCommand.ANOMALIES);
    assertThat(out.toString()).startsWith("INVALID");
  }

  @Test
  void anAnomalyExitsOne() throws IOException {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.lastReadOfAnna.op, "counter", 0);
    int status = check("--history", history(planted).toString(), "--events",
        events(scenario.run).toString());
    assertThat(status).isEqualTo(CheckCommand.ANOMALIES);
    assertThat(out.toString()).contains("LOST_WRITE");
  }

  @Test
  void unreadableInputExitsTwoWithOneLine() throws IOException {
    assertThat(check("--history", directory.resolve("none.jsonl").toString()))
        .isEqualTo(CheckCommand.UNREADABLE);
    assertThat(err.toString()).startsWith("cryo-chaos check: the history").contains("none.jsonl")
        .contains("no such file");
    assertThat(err.toString().strip().lines()).hasSize(1);

    Path garbage = directory.resolve("garbage.jsonl");
    Files.writeString(garbage, "{\"type\":\"invoke\"\nnot json\n");
    err.getBuffer().setLength(0);
    assertThat(check("--history", garbage.toString())).isEqualTo(CheckCommand.UNREADABLE);
    assertThat(err.toString()).contains("line 1");

    SimulatedRun run = new SimulatedRun();
    run.openPage("a", "a1");
    List<Entry> unpaired = new ArrayList<>(run.history());
    unpaired.remove(0);
    err.getBuffer().setLength(0);
    assertThat(check("--history", history(unpaired).toString()))
        .isEqualTo(CheckCommand.UNREADABLE);
    assertThat(err.toString()).contains("is not one").contains("without a pending invocation");

    Path events = directory.resolve("broken-events.jsonl");
    Files.writeString(events, "{\"event\":\"worker_died\",\"lost\":[\n{\"event\":\"sweep\"}\n");
    err.getBuffer().setLength(0);
    assertThat(check("--history", history(run.history()).toString(), "--events",
        events.toString())).isEqualTo(CheckCommand.UNREADABLE);
    assertThat(err.toString()).contains("broken-events.jsonl line 1");

    assertThat(check()).as("no --history").isEqualTo(64);
  }

  @Test
  void theGraceIsReadInSecondsWithAUnitOrIso() throws IOException {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("q", "q1");
    long fault = run.faultStart(FaultKind.DISK_FULL, "home");
    run.advance(10);
    run.faultEnd(fault, FaultKind.DISK_FULL);
    run.advance(12_000);
    Call late = run.invoke("q", "q1", Function.INC, page, null);
    run.advance(1);
    run.fail(late, 503, "saturated");
    String history = history(run.history()).toString();
    assertThat(check("--history", history)).isEqualTo(CheckCommand.ANOMALIES);
    for (String grace : List.of("15", "15s", "15000ms", "0.5m", "PT15S")) {
      assertThat(check("--history", history, "--grace", grace)).as(grace)
          .isEqualTo(CheckCommand.VALID);
    }
    assertThat(check("--history", history, "--grace", "soon")).isEqualTo(64);
    assertThat(check("--history", history, "--grace", "-PT1S")).isEqualTo(64);
    assertThat(new DurationConverter().convert("1.5s"))
        .isEqualTo(Duration.ofMillis(1500));
  }
}
