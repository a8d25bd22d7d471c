package dev.cryo.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The {@code cryo} command: the entry point of the runnable jar and the root of its sub-commands.
 *
 * <p>{@link #main} runs the command and exits with its code; {@link #commandLine()} builds the same
 * command tree for tests and embedders. Failures are printed as one line naming their reason code,
 * and turned into the exit codes of {@link ExitCodes}; stack traces only with {@code --verbose} or
 * the environment variable {@code CRYO_DEBUG}.
 */
@Command(
    name = "cryo",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "A runtime for stateful, user-sticky servers, and the tools that drive it.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "cryo keeps each user of a multi-process server in one worker, freezes him into a folder"
            + " on disk when the worker lets him go, and wakes him in the next worker that needs"
            + " him. Underneath lie crash-safe lockfiles that name their holder and are reclaimed"
            + " only on proof of its death.",
    },
    commandListHeading = "%nCommands:%n",
    optionListHeading = "%nOptions:%n",
    subcommands = {ServeCommand.class, StatusCommand.class, LockCommand.class, StopCommand.class,
        ReloadCommand.class,
        FreezerCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:success",
        "64:the command line is wrong (EX_USAGE)",
        "65:the lock's path holds something unexpected (EX_DATAERR)",
        "66:the directory is missing or not a directory (EX_NOINPUT)",
        "69:the run could not start (EX_UNAVAILABLE)",
        "70:an internal error, a bug (EX_SOFTWARE)",
        "74:the file system refused an operation (EX_IOERR)",
        "75:the lock is busy; retry later (EX_TEMPFAIL)"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo serve                                   # the demo on http://127.0.0.1:8080/",
        "  cryo status --home /srv/app/run --json",
        "  cryo lock run --wait 10s /srv/app -- ./nightly-import.sh",
        "  cryo lock status /srv/app --json",
        "  cryo lock break /srv/app",
        "  cryo stop --mode drain --home /srv/app/run",
        "  cryo freezer ls /srv/app/freezer --json",
        "",
        "Each command documents its own exit codes: 'cryo lock status --help'.",
        "Environment: CRYO_DEBUG=1 prints stack traces of failures, like --verbose."
    })
public final class Cryo implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of a failure (so does CRYO_DEBUG=1).")
  boolean verbose;

  /** Created by picocli; use {@link #commandLine()}. */
  public Cryo() {}

  /** Runs the {@code cryo} command and exits the JVM with its exit code. */
  public static void main(String[] args) {
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      // The lock library reports a reclaim at INFO; print it as one line, like the CLI's own.
      System.setProperty("java.util.logging.SimpleFormatter.format", "cryo: %5$s%6$s%n");
    }
    System.exit(commandLine().execute(args));
  }

  /** The {@code cryo} command tree, with cryo's handlers for usage errors and failures. */
  public static CommandLine commandLine() {
    Cryo root = new Cryo();
    CommandLine commandLine = new CommandLine(root);
    commandLine.setParameterExceptionHandler(Cryo::usageError);
    commandLine.setExecutionExceptionHandler((exception, command, parseResult) ->
        failure(exception, command, root.verbose || debugFromEnvironment()));
    // Everything after `cryo lock run [OPTIONS] DIR` is the command, its options included.
    commandLine.getSubcommands().get("lock").getSubcommands().get("run").setStopAtPositional(true);
    return commandLine;
  }

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    spec.commandLine().usage(err);
    return ExitCodes.USAGE;
  }

  static boolean debugFromEnvironment() {
    String value = System.getenv("CRYO_DEBUG");
    return value != null && !value.isEmpty() && !value.equals("0")
        && !value.equalsIgnoreCase("false");
  }

  /** Joins the lines of a message, so that every failure prints as one line. */
  static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }

  private static int usageError(CommandLine.ParameterException exception, String[] args) {
    CommandLine command = exception.getCommandLine();
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    err.println(name + ": usage: " + oneLine(exception.getMessage()));
    CommandLine.UnmatchedArgumentException.printSuggestions(exception, err);
    err.println("Try '" + name + " --help' for more information.");
    err.flush();
    return ExitCodes.USAGE;
  }

  private static int failure(Exception exception, CommandLine command, boolean verbose) {
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    CommandFailure failure = switch (exception) {
      case CommandFailure known -> known;
      case dev.cryo.lock.LockException lock -> CommandFailure.of(lock);
      default -> new CommandFailure(ExitCodes.SOFTWARE, "internal_error",
          exception + "; this is a bug in cryo: rerun with --verbose and report the stack trace",
          exception);
    };
    err.println(name + ": " + failure.reasonCode() + ": " + oneLine(failure.getMessage()));
    if (verbose) {
      exception.printStackTrace(err);
    }
    err.flush();
    return failure.exitCode();
  }
}
