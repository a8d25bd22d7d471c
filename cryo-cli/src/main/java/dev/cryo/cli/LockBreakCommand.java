package dev.cryo.cli;

import dev.cryo.lock.HolderVerdict;
import dev.cryo.lock.Liveness;
import dev.cryo.lock.LockException;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.LockReading;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.ProcessTable;
import dev.cryo.lock.Publication;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cryo lock break DIR [--force]}: removes the lock of a provably dead holder; a live or unknown
 * holder's only with {@code --force}. The file is removed only if it still holds the exact bytes that
 * were judged ({@link LockFile#removeIf}), so a lock taken meanwhile by somebody else is never
 * removed. Abandoned temporaries of dead writers are cleaned as well.
 */
@Command(
    name = "break",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Remove DIR/.lock when its holder is provably dead (any holder with --force).",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Judges the holder of DIR/.lock like 'cryo lock status' and removes the lock when the"
            + " holder is provably dead, or when the record is malformed and has not changed for"
            + " 2 s (what the next acquirer would do anyway). A live holder, one on another host"
            + " (unknown), or a malformed record younger than 2 s is removed only with --force,"
            + " and the output says whose it was. The removal happens only if the file still"
            + " holds the very bytes that were judged: a lock taken meanwhile is never removed."
            + " A symbolic link, FIFO, directory or unreadable file at DIR/.lock is never"
            + " removed: look at it and remove it by hand.",
        "",
        "Also removes the temporaries (DIR/.lock.cryo-tmp.PID.*, DIR/.lock.cryo-aside.PID.*)"
            + " that writers which are provably gone left behind."
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:the lock was removed, or was already free",
        " 1:refused: the holder is alive or unknown (or the record is malformed but recent);"
            + " nothing removed; --force removes it",
        " 3:not a regular file, or unreadable: nothing removed",
        "64:the command line is wrong",
        "66:DIR does not exist or is not a directory",
        "74:the file system refused the removal",
        "75:the lock changed while it was judged, or another remover was at work: nothing"
            + " removed; run again"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo lock break /srv/app",
        "  cryo lock break --force /srv/app   # the holder is known to be stuck"
    })
public final class LockBreakCommand implements Callable<Integer> {

  /** {@code cryo lock break}: refused, the holder is alive or unknown. */
  public static final int EXIT_REFUSED = 1;
  /** {@code cryo lock break}: not a regular file, or unreadable. */
  public static final int EXIT_UNUSABLE = 3;

  private static final Duration PATIENCE = Duration.ofSeconds(2);

  @Spec CommandSpec spec;

  @Option(names = "--force", description = "Remove the lock even when its holder is alive or"
      + " unknown. The holder is not stopped: it goes on believing it holds the lock.")
  boolean force;

  @Parameters(index = "0", paramLabel = "DIR", description = "The directory whose lock, DIR/.lock,"
      + " is removed.")
  Path directory;

  /** Created by picocli. */
  public LockBreakCommand() {}

  @Override
  public Integer call() {
    LockFile lockFile = LockDirectory.lockFileOf(directory);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ProcessTable table = ProcessTable.system();
    try {
      int cleaned = Publication.removeAbandoned(lockFile.path().getParent(),
          ProcessLock.FILE_NAME, table);
      if (cleaned > 0) {
        out.println("removed " + cleaned + " abandoned temporar" + (cleaned == 1 ? "y" : "ies")
            + " of dead writers beside " + lockFile.path());
      }
    } catch (IOException e) {
      err.println(spec.qualifiedName() + ": warning: could not clean abandoned temporaries beside "
          + lockFile.path() + ": " + e.getMessage());
    }
    LockReading reading = lockFile.read();
    LockStatusReport report = LockStatusReport.of(lockFile.path(), reading, table, Instant.now());
    String name = spec.qualifiedName();
    int code = switch (reading) {
      case LockReading.Absent absent -> {
        out.println(lockFile.path() + " is free: nothing to break");
        yield ExitCodes.OK;
      }
      case LockReading.NotRegular notRegular -> {
        err.println(name + ": " + LockException.Reason.NOT_A_REGULAR_FILE.code() + ": "
            + lockFile.path() + " is " + notRegular.kind() + ", not a lockfile; nothing was"
            + " removed: look at it and remove it by hand if nobody should be there");
        yield EXIT_UNUSABLE;
      }
      case LockReading.Unreadable unreadable -> {
        err.println(name + ": " + LockException.Reason.IO_FAILURE.code() + ": " + lockFile.path()
            + " cannot be read (" + unreadable.problem() + "); nothing was removed");
        yield EXIT_UNUSABLE;
      }
      case LockReading.Present present -> {
        HolderVerdict verdict = HolderVerdict.judge(present.record(), table);
        String whose = "held by " + present.record().describe() + ", holder "
            + verdict.liveness().code() + " (" + verdict.reason() + ")";
        if (verdict.liveness() != Liveness.DEAD && !force) {
          err.println(name + ": " + LockException.Reason.BUSY.code() + ": " + lockFile.path()
              + " is " + whose + "; nothing was removed: run 'cryo lock break --force "
              + directory + "' to remove it anyway");
          yield EXIT_REFUSED;
        }
        yield remove(lockFile, present.bytes(), whose, verdict.liveness() != Liveness.DEAD);
      }
      case LockReading.Malformed malformed -> {
        String what = "a malformed record (" + report.reason() + ")";
        if (!report.reclaimable() && !force) {
          err.println(name + ": " + LockException.Reason.MALFORMED_RECORD.code() + ": "
              + lockFile.path() + " holds " + what + "; nothing was removed: wait, or run"
              + " 'cryo lock break --force " + directory + "'");
          yield EXIT_REFUSED;
        }
        yield remove(lockFile, malformed.bytes(), "holding " + what, !report.reclaimable());
      }
    };
    out.flush();
    err.flush();
    return code;
  }

  private int remove(LockFile lockFile, byte[] judged, String whose, boolean forced) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LockFile.Removal outcome;
    try {
      outcome = lockFile.removeIf(bytes -> Arrays.equals(bytes, judged), PATIENCE);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, LockException.Reason.IO_FAILURE.code(),
          "could not remove " + lockFile.path() + ": " + e.getMessage() + "; it was left in place",
          e);
    }
    return switch (outcome) {
      case REMOVED -> {
        out.println("removed " + lockFile.path() + (forced ? " by force" : "") + ": it was "
            + whose);
        if (forced) {
          out.println("warning: that holder was not stopped; it may still believe it holds the"
              + " lock");
        }
        yield ExitCodes.OK;
      }
      case ABSENT -> {
        out.println(lockFile.path() + " was removed by somebody else meanwhile: it is free");
        yield ExitCodes.OK;
      }
      case CHANGED -> {
        err.println(spec.qualifiedName() + ": " + LockException.Reason.BUSY.code() + ": "
            + lockFile.path() + " changed while it was judged (a new holder took it); nothing"
            + " was removed: run 'cryo lock status' and break again if needed");
        yield ExitCodes.BUSY;
      }
      case CONTENDED -> {
        err.println(spec.qualifiedName() + ": " + LockException.Reason.BUSY.code() + ": another"
            + " process is removing or releasing " + lockFile.path() + " right now; nothing was"
            + " removed: run again");
        yield ExitCodes.BUSY;
      }
    };
  }
}
