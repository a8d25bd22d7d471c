package dev.cryo.cli;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockException;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code cryo lock run [--wait DURATION] [--holder NAME] DIR -- COMMAND [ARG...]}: holds
 * {@code DIR/.lock} while COMMAND runs, a better {@code flock(1)}.
 *
 * <p>The lock is taken with {@link ProcessLock}; COMMAND starts with cryo's standard input, output and
 * error; right after it starts, the record is rewritten to name COMMAND's process as a companion
 * ({@link ProcessLock#shareWith}), so the lock stays held while COMMAND runs even if cryo itself is
 * killed with SIGKILL. COMMAND waits behind a {@link CommandGate} until the record names it. SIGINT, SIGTERM and SIGHUP are forwarded to COMMAND ({@link SignalForwarding});
 * cryo waits for it, releases the lock and exits with its status.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Hold DIR/.lock while COMMAND runs; exit with COMMAND's status.",
    synopsisHeading = "%nUsage: ",
    customSynopsis = "cryo lock run [--wait=DURATION] [--holder=NAME] DIR -- COMMAND [ARG...]",
    descriptionHeading = "%n",
    description = {
        "Takes the lock of DIR (the file DIR/.lock; DIR must exist), runs COMMAND with cryo's"
            + " standard input, output and error, and releases the lock when COMMAND ends."
            + " Options come before DIR; everything after DIR (and its --) is COMMAND.",
        "",
        "While the lock is busy, waits up to DURATION (default 0: one try), then gives up with"
            + " exit code 75 and one line on stderr naming the holder. A provably dead holder's"
            + " lock is reclaimed at once.",
        "",
        "SIGINT, SIGTERM and SIGHUP sent to cryo are forwarded to COMMAND (Ctrl-C in a terminal"
            + " already reaches COMMAND and is not sent twice); cryo waits for COMMAND, releases"
            + " and exits with its status.",
        "",
        "The record names COMMAND's process as a companion: if cryo is killed with SIGKILL, the"
            + " lock stays held while COMMAND runs and becomes reclaimable when it ends. COMMAND"
            + " starts behind a gate and runs only once the record names it, so there is no"
            + " moment in which it runs unprotected."
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "  N:COMMAND's exit status",
        "128+S:COMMAND was killed by signal S (or cryo by S before COMMAND started)",
        " 64:the command line is wrong",
        " 65:something that is not a regular file is at DIR/.lock",
        " 66:DIR does not exist or is not a directory",
        " 74:the file system refused to write or remove the lock",
        " 75:busy: the lock was still held after DURATION",
        "126:COMMAND cannot be executed",
        "127:COMMAND was not found"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo lock run /srv/app -- ./nightly-import.sh",
        "  cryo lock run --wait 10m --holder 'deploy of v42' /srv/app -- make deploy",
        "  cryo lock run --wait PT30S /tmp/job -- sh -c 'backup && prune'",
        "",
        "The codes of cryo and of COMMAND can coincide: a script that must tell them apart"
            + " reads stderr, where cryo writes one line per refusal."
    })
public final class LockRunCommand implements Callable<Integer> {

  /** The longest default holder name, in characters, before it is cut. */
  static final int DEFAULT_HOLDER_LENGTH = 120;

  @Spec CommandSpec spec;

  @Option(names = {"-w", "--wait"}, paramLabel = "DURATION", defaultValue = "0",
      converter = DurationConverter.class,
      description = "How long to wait for a busy lock: 500ms, 10s, 2m, 1h, 1d, a number of"
          + " seconds, ISO-8601 (PT5S), or forever. Default: ${DEFAULT-VALUE} (one try).")
  Duration wait;

  @Option(names = "--holder", paramLabel = "NAME",
      description = "The holder name written in the lock, shown by 'cryo lock status'."
          + " Default: 'cryo lock run: COMMAND ARG...', cut to " + DEFAULT_HOLDER_LENGTH
          + " characters.")
  String holder;

  @Parameters(index = "0", paramLabel = "DIR",
      description = "The directory whose lock, DIR/.lock, is held; it must exist.")
  Path directory;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND",
      description = "The command and its arguments, after --; run without a shell.")
  List<String> command;

  /** Created by picocli. */
  public LockRunCommand() {}

  @Override
  public Integer call() {
    List<String> argv = commandArguments();
    String holderName = holder != null ? holder : defaultHolder(argv);
    PrintWriter err = spec.commandLine().getErr();
    try (SignalForwarding signals = SignalForwarding.install(Thread.currentThread())) {
      ProcessLock lock;
      try {
        lock = ProcessLock.acquire(directory, wait, holderName);
      } catch (LockBusyException e) {
        if (signals.pending() != null) {
          return interrupted(signals.pending());
        }
        throw CommandFailure.of(e);
      } catch (LockException e) {
        throw CommandFailure.of(e);
      }
      int status = ExitCodes.SOFTWARE;
      try {
        status = runHolding(lock, argv, signals);
      } finally {
        status = release(lock, status, err);
      }
      return status;
    }
  }

  private int runHolding(ProcessLock lock, List<String> argv, SignalForwarding signals) {
    checkRunnable(argv.get(0));
    CommandGate gate;
    Process process;
    try {
      gate = CommandGate.close();
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, "io_failure", "cannot create the gate file that holds"
          + " COMMAND back until the lock names it: " + e.getMessage() + "; the lock was released",
          e);
    }
    try {
      try {
        process = signals.start(new ProcessBuilder(gate.wrap(argv)).inheritIO());
      } catch (IOException e) {
        throw cannotStart("/bin/sh", e);
      }
      if (process == null) {
        return interrupted(signals.pending());
      }
      try {
        lock.shareWith(process.toHandle());
      } catch (LockException e) {
        if (e.reason() == LockException.Reason.LOCK_LOST) {
          process.destroy();
          waitFor(process);
          throw new CommandFailure(ExitCodes.IO, e.reason().code(), Cryo.oneLine(e.getMessage())
              + "; COMMAND was not started, since it would have run without the lock", e);
        }
        spec.commandLine().getErr().println(spec.qualifiedName() + ": warning: "
            + e.reason().code() + ": " + Cryo.oneLine(e.getMessage()) + "; COMMAND runs, but if"
            + " cryo is killed with SIGKILL the lock no longer covers it");
        spec.commandLine().getErr().flush();
      }
      try {
        gate.open();
      } catch (IOException e) {
        process.destroy();
        waitFor(process);
        throw new CommandFailure(ExitCodes.IO, "io_failure", "cannot open the gate that holds"
            + " COMMAND back: " + e.getMessage() + "; COMMAND was not started", e);
      }
    } finally {
      gate.openQuietly();
    }
    return waitFor(process);
  }

  /** Refuses, before anything starts, a COMMAND that a shell could not find or execute. */
  private void checkRunnable(String program) {
    Path found = null;
    if (program.contains("/")) {
      found = Path.of(program);
    } else {
      for (String entry : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":", -1)) {
        Path candidate = Path.of(entry.isEmpty() ? "." : entry, program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          found = candidate;
          break;
        }
      }
    }
    if (found == null || !Files.exists(found)) {
      throw new CommandFailure(ExitCodes.NOT_FOUND, "command_not_found",
          "cannot run '" + program + "': No such file or directory; the lock was released", null);
    }
    if (!Files.isRegularFile(found) || !Files.isExecutable(found)) {
      throw new CommandFailure(ExitCodes.CANNOT_EXECUTE, "command_not_executable",
          "cannot run '" + program + "': Permission denied; the lock was released", null);
    }
  }

  private int release(ProcessLock lock, int status, PrintWriter err) {
    try {
      lock.close();
      return status;
    } catch (LockException e) {
      err.println(spec.qualifiedName() + ": " + e.reason().code() + ": "
          + Cryo.oneLine(e.getMessage()));
      err.flush();
      return status == ExitCodes.OK ? ExitCodes.IO : status;
    }
  }

  /** COMMAND, without the {@code --} that separates it from DIR. */
  private List<String> commandArguments() {
    List<String> argv = command;
    if (!argv.isEmpty() && argv.get(0).equals("--")) {
      argv = argv.subList(1, argv.size());
    } else if (!argv.isEmpty() && argv.get(0).startsWith("-")) {
      throw new CommandLine.ParameterException(spec.commandLine(), "'" + argv.get(0)
          + "' follows DIR: options go before DIR, and COMMAND after --, as in 'cryo lock run"
          + " --wait 10s DIR -- COMMAND'");
    }
    if (argv.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "COMMAND is missing after --");
    }
    return List.copyOf(argv);
  }

  static String defaultHolder(List<String> argv) {
    String name = "cryo lock run: " + String.join(" ", argv);
    return name.length() <= DEFAULT_HOLDER_LENGTH ? name
        : name.substring(0, DEFAULT_HOLDER_LENGTH - 1) + "…";
  }

  private int interrupted(Signal signal) {
    PrintWriter err = spec.commandLine().getErr();
    err.println(spec.qualifiedName() + ": interrupted: SIG" + signal.getName()
        + " arrived before COMMAND started; COMMAND was not run and the lock is not held");
    err.flush();
    return ExitCodes.SIGNALLED + signal.getNumber();
  }

  /**
   * The refusal for a program the JDK could not start. Whether it is missing (127) or there but
   * not executable (126) is told by looking at it, not by reading the JDK's message, whose wording
   * (and the C library's, in the reader's language) may change; the message is quoted for people.
   */
  private CommandFailure cannotStart(String program, IOException e) {
    boolean missing = !Files.exists(Path.of(program));
    return new CommandFailure(missing ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE,
        missing ? "command_not_found" : "command_not_executable",
        "cannot run '" + program + "': " + e.getMessage() + "; the lock was released", e);
  }

  private static int waitFor(Process process) {
    while (true) {
      try {
        return process.waitFor();
      } catch (InterruptedException e) {
        // Signals are forwarded to the command, never to this wait: keep waiting for it.
      }
    }
  }
}
