package dev.cryo.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.ControlException;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import dev.cryo.control.StopDelivery;
import dev.cryo.control.StopMode;
import dev.cryo.control.StopReading;
import dev.cryo.control.StopRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cryo stop [--mode drain|now] [--home DIR]} publishes a stop request bound to the run
 * {@code DIR/run.json} names; {@code cryo stop --status [--json]} prints what a reader finds at
 * {@code DIR/stop-request}. Nothing here signals a process: the server reads the request on its next
 * tick and acts.
 */
@Command(
    name = "stop",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Ask the server running in a run directory to stop, or say what stop is asked.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Publishes DIR/stop-request, bound to the run DIR/run.json names (its invocation id), and"
            + " prints the delivery in one line. The request is written whole or not at all and is"
            + " never replaced: when one is already there nothing is written and the line says"
            + " whose it is. After writing, run.json is read again: another run there means"
            + " 'server changed; stop not delivered' (the new server removes the request).",
        "  drain: admit nothing more, freeze every user, let every worker finish its step, exit.",
        "  now:   stop at once, as a Ctrl-C of the server; nothing more is frozen.",
        "",
        "With --wait, waits after publishing until the run ended (exit 0), or the run refused"
            + " its drain (exit 73): a user could not be written (a full disk), so no worker quit,"
            + " nothing was committed or deleted, and the run serves on; the line names who stays"
            + " and why (from DIR/events.jsonl's drain_refused). Free space, then ask again.",
        "",
        "With --status, only reads (creates nothing) and prints: no request, a request (mode,"
            + " invocation, requested-at, whether it applies to the current run), or a request"
            + " that does not parse (and why; every server reads it as a drain). With --json, one"
            + " JSON object on one line, every field always present (null when it does not apply):",
        "  {\"stopRequest\": \"/abs/DIR/stop-request\",",
        "   \"state\": \"none\" | \"request\" | \"unparseable\",",
        "   \"mode\": \"drain\" | \"now\" | null,   (an unparseable request reads as drain)",
        "   \"invocation\": \"32 hex\" | null, \"requestedAt\": \"ISO-8601\" | null,",
        "   \"currentInvocation\": \"32 hex\" | null,   (from run.json; null without one)",
        "   \"appliesToCurrentRun\": true | false | null,  (null without a loadable run.json)",
        "   \"problem\": \"why it does not parse\" | null}",
        "",
        "DIR defaults to $CRYO_HOME, else $XDG_STATE_HOME/cryo, else ~/.local/state/cryo."
    },
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:written (publishing); no request (--status)",
        " 1:a request is already there, nothing written (publishing); a request (--status)",
        " 2:written, but the server changed: stop not delivered (publishing);"
            + " a request that does not parse (--status)",
        "64:the command line is wrong",
        "65:run.json does not load, a link or non-directory stands at DIR, or DIR belongs to"
            + " another user, whose server would not act on this request (refused)",
        "66:no run.json in DIR, or no DIR: no server ran there (refused; nothing written)",
        "69:--wait: the server's process is gone without ending its run (it was killed)",
        "73:--wait: the run refused the drain (a user could not be written) and serves on",
        "74:the file system refused an operation"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo stop --home /srv/app/run",
        "  cryo stop --mode now --home /srv/app/run",
        "  cryo stop --status --json --home /srv/app/run"
    })
public final class StopCommand implements Callable<Integer> {

  /** Publishing: the request was written and its run is current (or has ended, as the line says). */
  public static final int WRITTEN = 0;
  /** Publishing: a request is already there (this run's, an earlier run's, or unparseable). */
  public static final int ALREADY_THERE = 1;
  /** Publishing: written, but run.json named another run right after. */
  public static final int SERVER_CHANGED = 2;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--mode", paramLabel = "drain|now", description = "How the server stops"
      + " (default: ${DEFAULT-VALUE}).", defaultValue = "drain", converter = ModeConverter.class)
  StopMode mode;

  @Option(names = "--home", paramLabel = "DIR", description = "The run directory, where run.json"
      + " and stop-request lie (default: $CRYO_HOME, else $XDG_STATE_HOME/cryo, else"
      + " ~/.local/state/cryo).")
  Path home;

  @Option(names = "--wait", description = "After publishing, wait until the run ended (exit 0),"
      + " or its drain was refused because a user could not be written (exit 73: the run serves"
      + " on; the line names who stays and why).")
  boolean await;

  @Option(names = "--status", description = "Only read and print what a reader finds.")
  boolean status;

  @Option(names = "--json", description = "With --status: one JSON object (described above).")
  boolean json;

  /** Created by picocli. */
  public StopCommand() {}

  /** Converts {@code drain} and {@code now}, exactly. */
  static final class ModeConverter implements picocli.CommandLine.ITypeConverter<StopMode> {
    @Override
    public StopMode convert(String value) {
      return StopMode.ofCode(value).orElseThrow(() -> new picocli.CommandLine.TypeConversionException(
          "'" + value + "' is not a stop mode: use drain or now"));
    }
  }

  /** The run directory when --home is not given, from the environment. */
  static Path defaultHome(Map<String, String> environment) {
    String cryoHome = environment.get("CRYO_HOME");
    if (cryoHome != null && !cryoHome.isEmpty()) {
      return Path.of(cryoHome);
    }
    String state = environment.get("XDG_STATE_HOME");
    if (state != null && !state.isEmpty()) {
      return Path.of(state, "cryo");
    }
    return Path.of(System.getProperty("user.home"), ".local", "state", "cryo");
  }

  @Override
  public Integer call() throws JsonProcessingException {
    if (json && !status) {
      throw new CommandFailure(ExitCodes.USAGE, "usage", "--json goes with --status; nothing was"
          + " written: add --status, or drop --json");
    }
    RunDirectory directory = RunDirectory.at(home != null ? home : defaultHome(System.getenv()));
    PrintWriter out = spec.commandLine().getOut();
    try {
      int code = status ? status(directory, out) : publish(directory, out);
      out.flush();
      return code;
    } catch (ControlException e) {
      throw failure(e);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, "io_failure", e.getMessage(), e);
    }
  }

  private int publish(RunDirectory directory, PrintWriter out) throws IOException {
    long seen = await ? StopWait.eventsSeen(directory) : 0;
    StopDelivery delivery = directory.requestStop(mode);
    out.println(delivery.outcome().code() + ": " + Cryo.oneLine(delivery.message()));
    if (await && delivery.outcome() == StopDelivery.Outcome.WRITTEN) {
      out.flush();
      try {
        return StopWait.until(directory, seen, out);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCodes.SOFTWARE;
      }
    }
    return switch (delivery.outcome()) {
      case WRITTEN -> WRITTEN;
      case ALREADY_THERE, EARLIER_RUN, UNPARSEABLE -> ALREADY_THERE;
      case SERVER_CHANGED -> SERVER_CHANGED;
    };
  }

  private int status(RunDirectory directory, PrintWriter out)
      throws IOException {
    StopReading reading = directory.readStopRequest();
    Optional<RunState> run;
    try {
      run = directory.loadRunState();
    } catch (ControlException e) {
      run = Optional.empty();
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("stopRequest", directory.stopRequestPath().toString());
    report.put("state", !reading.present() ? "none" : reading.unparseable() ? "unparseable"
        : "request");
    report.put("mode", reading.mode().map(StopMode::code).orElse(null));
    Optional<StopRequest> request = reading.request();
    report.put("invocation", request.map(StopRequest::invocationId).orElse(null));
    report.put("requestedAt", request.map(r -> r.requestedAt().format(
        DateTimeFormatter.ISO_OFFSET_DATE_TIME)).orElse(null));
    report.put("currentInvocation", run.map(RunState::invocationId).orElse(null));
    report.put("appliesToCurrentRun", reading.present()
        ? run.map(r -> reading.appliesTo(r.invocationId())).orElse(null) : null);
    report.put("problem", reading.unparseable() ? reading.problem() : null);
    if (json) {
      out.println(JSON.writeValueAsString(report));
    } else if (!reading.present()) {
      out.println(report.get("stopRequest") + ": no stop request");
    } else if (reading.unparseable()) {
      out.println(report.get("stopRequest") + ": a stop request that does not parse, read as a"
          + " drain by every server: " + Cryo.oneLine(reading.problem()));
    } else {
      Object applies = report.get("appliesToCurrentRun");
      out.println(report.get("stopRequest") + ": " + report.get("mode") + " stop requested at "
          + report.get("requestedAt") + " for invocation " + report.get("invocation") + "; "
          + (applies == null ? "no loadable run.json to compare with"
          : Boolean.TRUE.equals(applies) ? "it applies to the current run"
          : "it does not apply to the current run (" + report.get("currentInvocation")
              + "), which removes it at its next tick"));
    }
    return !reading.present() ? 0 : reading.unparseable() ? 2 : 1;
  }

  private static CommandFailure failure(ControlException e) {
    int code = switch (e.reason()) {
      case NO_RUN_STATE -> ExitCodes.NO_INPUT;
      case MALFORMED_RUN_STATE, UNSAFE_PATH, NOT_A_REGULAR_FILE, READ_LIMIT_EXCEEDED, NOT_OWNED,
          WRITABLE_BY_OTHERS, NOT_PRIVATE -> ExitCodes.DATA;
      case UNREADABLE, ROOT_MOVED, IO_FAILURE -> ExitCodes.IO;
    };
    return new CommandFailure(code, e.reason().code(), e.getMessage(), e);
  }
}
