package dev.cryo.cli;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.commander.Status;
import dev.cryo.control.ControlException;
import dev.cryo.control.SafeRoot;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cryo status [--home DIR] [--json]}: what the run in a run directory is doing, read from
 * the {@code status.json} its commander writes on every tick, and whether that commander still
 * lives (judged from the run lock's holder, as {@code cryo lock status} judges it).
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Show the run of cryo serve in a run directory: its workers and users.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Reads DIR/status.json (written by the run's commander on every tick, 5 s) and DIR/.lock"
            + " (whether the commander lives), changing nothing. Prints the run (invocation, pid,"
            + " since), each worker (name, pid, state, users, heap used / ceiling, age) and the"
            + " users placed, frozen, held and lost, and the freezer's size and free space.",
        "",
        "With --json, one JSON object: status.json's own (schema cryo.status/1, documented in"
            + " docs/cli.md) with one field added, \"alive\": true when the commander holding the"
            + " run lock is alive, false when the run ended or its commander died.",
        "",
        "DIR defaults to $CRYO_HOME, else $XDG_STATE_HOME/cryo, else ~/.local/state/cryo."
    },
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:a run is alive",
        " 1:no run is alive (the last status, if any, is shown)",
        "64:the command line is wrong",
        "65:status.json does not read",
        "66:no run directory, or no run ever wrote a status there"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo status",
        "  cryo status --home /srv/app/run --json"
    })
final class StatusCommand implements Callable<Integer> {

  /** The name of the status file in the run directory. */
  static final String FILE_NAME = "status.json";
  /** The largest status file read: far above 10,000 workers' worth. */
  static final int MAX_BYTES = 4 << 20;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  @Spec CommandSpec spec;

  @Option(names = "--home", paramLabel = "DIR", description = "The run directory.")
  Path home;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Path directory = home != null ? home : StopCommand.defaultHome(System.getenv());
    if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      throw new CommandFailure(ExitCodes.NO_INPUT, "no_run_directory", directory
          + " is not a directory: no run of cryo serve is there; give the run's --home");
    }
    ObjectNode status = read(directory);
    LockFile lock = LockDirectory.lockFileOf(directory);
    LockStatusReport report = LockStatusReport.of(lock.path(), lock.read(), ProcessTable.system(),
        Instant.now());
    boolean alive = LockStatusReport.HELD.equals(report.state())
        && !"dead".equals(report.liveness())
        && report.holder() != null && report.holder().pid() == status.path("run").path("pid")
            .asLong(-1);
    status.put(Status.ALIVE, alive);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(JSON.writeValueAsString(status));
    } else {
      out.print(text(status, alive));
    }
    out.flush();
    return alive ? 0 : 1;
  }

  private static ObjectNode read(Path directory) {
    Path file = directory.resolve(FILE_NAME);
    byte[] bytes;
    try (SafeRoot root = SafeRoot.open(directory)) {
      bytes = root.read(FILE_NAME, MAX_BYTES).orElseThrow(() -> new CommandFailure(
          ExitCodes.NO_INPUT, "no_status", "no run of cryo serve has written a status in "
              + directory + " yet: start one with cryo serve --home " + directory));
    } catch (ControlException e) {
      throw new CommandFailure(ExitCodes.DATA, "status_unreadable", file + " was refused ("
          + e.getMessage() + "); it was left alone", e);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.DATA, "status_unreadable", file + " does not read ("
          + e.getMessage() + "); it was left alone", e);
    }
    try {
      JsonNode node = JSON.readTree(bytes);
      if (!(node instanceof ObjectNode object) || !Status.SCHEMA.equals(
          object.path("schema").asText())) {
        throw new CommandFailure(ExitCodes.DATA, "status_unreadable", file
            + " is not a status of schema cryo.status/1; it was left alone");
      }
      return object;
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.DATA, "status_unreadable", file + " is not JSON ("
          + e.getMessage() + "); it was left alone", e);
    }
  }

  private static String text(JsonNode status, boolean alive) {
    StringBuilder text = new StringBuilder();
    JsonNode run = status.path("run");
    text.append(!alive ? "not running (the last status it wrote follows)"
        : "draining".equals(status.path("state").asText())
            ? "draining (admitting nothing; its workers quit into the freezer)" : "running")
        .append(": run ").append(run.path("invocation_id").asText()).append(", pid ")
        .append(run.path("pid").asLong()).append(", since ").append(run.path("since").asText())
        .append(", status of ").append(status.path("taken_at").asText()).append('\n');
    text.append(String.format("%-14s %8s %-9s %7s %21s %8s%n", "worker", "pid", "state", "users",
        "heap used / ceiling", "age"));
    for (JsonNode worker : status.path("workers")) {
      text.append(String.format("%-14s %8d %-9s %7d %21s %8s%n",
          worker.path("name").asText() + (worker.path("reception").asBoolean() ? "*" : ""),
          worker.path("pid").asLong(), worker.path("state").asText(), worker.path("users").asInt(),
          mebibytes(worker.path("heap_used_bytes").asLong()) + " / "
              + mebibytes(worker.path("heap_max_bytes").asLong()),
          worker.path("age_seconds").asLong() + " s"));
    }
    JsonNode users = status.path("users");
    text.append("users: ").append(users.path("placed").asLong()).append(" placed, ")
        .append(users.path("frozen").asLong()).append(" frozen, ")
        .append(users.path("held").asLong()).append(" held, ")
        .append(users.path("lost").asLong()).append(" lost; ")
        .append(status.path("connections").asLong()).append(" connections, ")
        .append(status.path("pages").asLong()).append(" pages (* the reception)\n");
    JsonNode freezer = status.path("freezer");
    if (freezer.isObject()) { // a status of an older version has none
      long total = freezer.path("total_bytes").asLong();
      text.append(String.format(Locale.ROOT, "freezer: %d bytes in %d files, %d folders; its file"
          + " system %.1f%% free (%d of %d bytes usable)%n", freezer.path("bytes").asLong(),
          freezer.path("files").asLong(), freezer.path("folders").asLong(),
          total == 0 ? 0.0 : 100.0 * freezer.path("free_bytes").asLong() / total,
          freezer.path("free_bytes").asLong(), total));
    }
    return text.toString();
  }

  private static String mebibytes(long bytes) {
    return String.format("%.0f MiB", bytes / 1048576.0);
  }
}
