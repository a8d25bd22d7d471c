package dev.cryo.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.ProcessTable;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cryo lock status DIR [--json]}: whether {@code DIR/.lock} is free, who holds it and whether
 * that holder is alive, dead or unknown. It only reads; the exit code tells the answer to scripts.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Say whether DIR/.lock is free, who holds it, and whether that holder lives.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Reads DIR/.lock without changing anything and judges its holder: alive (its process, or"
            + " its companion, the command of 'cryo lock run', still runs), dead (provably gone:"
            + " the machine rebooted since, or no process has its pid, or the pid was reused), or"
            + " unknown (it runs on another machine, told by its machine id or host name; the lock"
            + " counts as held). A symbolic link, FIFO or directory at DIR/.lock is reported,"
            + " never followed or opened.",
        "",
        "With --json, one JSON object on one line; its fields are stable and always present"
            + " (null when they do not apply):",
        "  {\"lockFile\": \"/abs/DIR/.lock\",",
        "   \"state\": \"free\" | \"held\" | \"malformed\" | \"not_regular\" | \"unreadable\",",
        "   \"liveness\": \"alive\" | \"dead\" | \"unknown\" | null,     (null unless held)",
        "   \"reclaimable\": true | false,  (dead holder, or malformed and unchanged for 2 s)",
        "   \"reason\": \"why, in one line\" | null,                 (null when free)",
        "   \"holder\": null | {\"pid\": 4242, \"start\": 91325734 | null,",
        "     \"boot\": \"3c1e0a4e-...\" | null, \"machine\": \"3d1219c7...\" | null,",
        "     \"host\": \"build-7\" | null, \"name\": \"nightly import\" | null,",
        "     \"token\": \"5f0c...\" | null,",
        "     \"since\": \"2026-11-29T16:31:05.123Z\" | null,",
        "     \"companion\": null | {\"pid\": 4250, \"start\": 91325790 | null}}}",
        "start is the process start time in clock ticks since boot. A lock written as a bare pid"
            + " has only pid."
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:free",
        " 1:held by a live holder, or by one on another host (unknown)",
        " 2:held by a provably dead holder: reclaimable",
        " 3:malformed record, not a regular file, or unreadable",
        "64:the command line is wrong",
        "66:DIR does not exist or is not a directory (one line on stderr, nothing on stdout)",
        "74:DIR cannot be examined"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo lock status /srv/app",
        "  cryo lock status /srv/app --json | jq -r .holder.name"
    })
public final class LockStatusCommand implements Callable<Integer> {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object (described above) instead of text.")
  boolean json;

  @Parameters(index = "0", paramLabel = "DIR", description = "The directory whose lock, DIR/.lock,"
      + " is examined.")
  Path directory;

  /** Created by picocli. */
  public LockStatusCommand() {}

  @Override
  public Integer call() throws JsonProcessingException {
    LockFile lockFile = LockDirectory.lockFileOf(directory);
    LockStatusReport report = LockStatusReport.of(lockFile.path(), lockFile.read(),
        ProcessTable.system(), Instant.now());
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(JSON.writeValueAsString(report));
    } else {
      out.print(report.toText());
    }
    out.flush();
    return report.exitCode();
  }
}
