package dev.cryo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.ReloadRequests;
import dev.cryo.control.ControlException;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunHome;
import dev.cryo.control.RunState;
import dev.cryo.control.SafeRoot;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cryo reload [--home DIR] [--app-path NEW.jar] [--wait DURATION]}: asks the server running
 * in {@code DIR} for a rolling reload, through a request file its tick reads
 * ({@link ReloadRequests}), and waits for its answer.
 */
@Command(
    name = "reload",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Replace the workers of a running server one by one, with a new application version.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Publishes DIR/reload.json, bound to the run DIR/run.json names, and waits for the"
            + " server's answer in DIR/reload-result.json. The server keeps its port and every"
            + " open socket and replaces its workers one at a time: it starts a new worker (with"
            + " --app-path, the new version's jar), stops placing anybody on the old one, freezes"
            + " the old one's users with their requests held (not refused) and quits it. Each"
            + " user wakes, with his state, on his next request, read by the new version (see"
            + " CryoApplication.stateVersion and upgrade). A new worker that does not start stops"
            + " the reload there: the old workers run on with the former version. A version"
            + " whose state version cannot read what is stored (users awake or frozen with state"
            + " of a newer state version) is refused up front (unreadable_state), naming how many"
            + " users it would strand; nothing is replaced.",
        "",
        "Prints one line: done or refused, what was replaced, how many users were frozen and"
            + " lost, and how long it took.",
        "",
        "DIR defaults to $CRYO_HOME, else $XDG_STATE_HOME/cryo, else ~/.local/state/cryo."
    },
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:every worker was replaced",
        " 1:the server refused or stopped the reload (the line says why; the workers not"
            + " replaced run on)",
        " 2:no answer within --wait (the reload may still run: see cryo status)",
        "64:the command line is wrong, --app-path is not a file, or --app-config does not read",
        "65:DIR belongs to another user, whose server would not act on this request, or run.json"
            + " does not load (nothing written)",
        "66:no run.json in DIR: no server runs there (nothing written)",
        "75:a reload request is already waiting in DIR (nothing written)"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo reload --home /srv/app/run --app-path /srv/app/notes-2.jar",
        "  cryo reload --home /srv/app/run"
    })
public final class ReloadCommand implements Callable<Integer> {

  /** The server refused or stopped the reload. */
  public static final int REFUSED = 1;
  /** No answer within the wait. */
  public static final int NO_ANSWER = 2;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--home", paramLabel = "DIR", description = "The run directory (default:"
      + " $CRYO_HOME, else $XDG_STATE_HOME/cryo, else ~/.local/state/cryo).")
  Path home;

  @Option(names = "--app-path", paramLabel = "JAR", description = "The new version's jar"
      + " (default: the one the workers run now).")
  Path appPath;

  @Option(names = "--app-config", paramLabel = "FILE", description = "The application's"
      + " configuration from now on, a Java properties file (default: the file the run was"
      + " started or last reloaded with, read again now; the new workers see its contents).")
  Path appConfig;

  @Option(names = "--worker-jvm-option", paramLabel = "OPTION", description = "An option of the"
      + " new worker JVMs beyond cryo's own, replacing the current ones; repeat for several"
      + " (default: the current ones).")
  java.util.List<String> workerJvmOptions;

  @Option(names = "--no-worker-jvm-options", description = "Start the new workers without JVM"
      + " options beyond cryo's own.")
  boolean noWorkerJvmOptions;

  @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "10m",
      converter = DurationConverter.class,
      description = "How long to wait for the server's answer. Default: ${DEFAULT-VALUE}.")
  Duration wait;

  /** Created by picocli. */
  public ReloadCommand() {}

  @Override
  public Integer call() throws Exception {
    if (appPath != null && !Files.isRegularFile(appPath)) {
      throw new CommandFailure(ExitCodes.USAGE, "no_such_jar", "--app-path " + appPath
          + " is not a file; nothing was written: give the new version's jar", null);
    }
    if (appConfig != null) {
      try {
        dev.cryo.commander.AppConfigFile.read(appConfig);
      } catch (IllegalArgumentException e) {
        throw new CommandFailure(ExitCodes.USAGE, "bad_app_config", "--app-config: "
            + e.getMessage() + "; nothing was written: the run goes on as it was", null);
      }
    }
    if (noWorkerJvmOptions && workerJvmOptions != null) {
      throw new CommandFailure(ExitCodes.USAGE, "bad_worker_jvm_option", "--worker-jvm-option"
          + " and --no-worker-jvm-options contradict each other; nothing was written: give one",
          null);
    }
    java.util.List<String> options = noWorkerJvmOptions ? java.util.List.of() : workerJvmOptions;
    if (options != null) {
      ServeCommand.checkJvmOptions(options, "nothing was written");
    }
    Path directory = (home != null ? home : StopCommand.defaultHome(System.getenv()))
        .toAbsolutePath();
    Optional<RunState> run;
    try {
      run = RunDirectory.at(directory).loadRunState();
    } catch (ControlException e) {
      throw new CommandFailure(ExitCodes.DATA, e.reason().code(), e.getMessage(), e);
    }
    if (run.isEmpty() || run.get().hasEnded()) {
      throw new CommandFailure(ExitCodes.NO_INPUT, "no_run", "no server runs in " + directory
          + " (no run.json, or its run has ended); nothing was written: start one with cryo"
          + " serve --home " + directory, null);
    }
    ReloadRequests.Request request = ReloadRequests.Request.of(run.get().invocationId(), appPath,
        appConfig, options);
    try (SafeRoot root = SafeRoot.open(directory)) {
      try {
        RunHome.requireRequester(root);
      } catch (ControlException e) {
        throw new CommandFailure(ExitCodes.DATA, e.reason().code(), e.getMessage(), e);
      }
      if (!root.publishExclusive(ReloadRequests.REQUEST, request.toJson())) {
        throw new CommandFailure(ExitCodes.BUSY, "already_requested", "a reload request is"
            + " already waiting in " + directory.resolve(ReloadRequests.REQUEST) + "; nothing was"
            + " written: wait for the server to take it (its next tick), then try again", null);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode answer = answer(directory, request.id());
      if (answer != null && !answer.path("state").asText().equals("running")) {
        boolean done = answer.path("state").asText().equals("done");
        out.println((done ? "done: " : "refused (" + answer.path("refusal").asText() + "): ")
            + Cryo.oneLine(answer.path("message").asText()) + " (" + answer.path("millis")
            .asLong() + " ms)");
        out.flush();
        return done ? ExitCodes.OK : REFUSED;
      }
      Thread.sleep(100); // polling the server's answer file, not a synchronisation
    }
    out.println("no answer within " + wait + ": the reload may still run (request "
        + request.id() + "); see cryo status --home " + directory);
    out.flush();
    return NO_ANSWER;
  }

  private static JsonNode answer(Path directory, String id) {
    try (SafeRoot root = SafeRoot.open(directory)) {
      Optional<byte[]> bytes = root.read(ReloadRequests.RESULT, 1 << 20);
      if (bytes.isEmpty()) {
        return null;
      }
      JsonNode node = JSON.readTree(bytes.get());
      return id.equals(node.path("id").asText(null)) ? node : null;
    } catch (IOException e) {
      return null; // being replaced, or not yet there: read again
    }
  }
}
