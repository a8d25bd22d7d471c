package dev.cryo.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cryo lock}: the lockfiles of cryo from the shell, a better {@code flock(1)}. It only groups
 * {@link LockRunCommand run}, {@link LockStatusCommand status} and {@link LockBreakCommand break}.
 */
@Command(
    name = "lock",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    headerHeading = "%n",
    header = "Hold, inspect and break the lock of a directory.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "The lock of a directory DIR is the file DIR/.lock. It names its holder (pid, that"
            + " process's start time, boot id, machine id, host, a holder name, a random token,"
            + " since when),"
            + " so `cat DIR/.lock` tells who holds it. It appears complete or not at all, and a"
            + " holder is displaced only on proof of its death: its machine rebooted since, no"
            + " process has its pid any more, or the pid now belongs to another process. A lock"
            + " from another machine (another machine id or host name), or one that cannot be"
            + " read, counts as held.",
        "",
        "Programs in Java take the same lock with dev.cryo.lock.ProcessLock."
    },
    commandListHeading = "%nCommands:%n",
    optionListHeading = "%nOptions:%n",
    subcommands = {LockRunCommand.class, LockStatusCommand.class, LockBreakCommand.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  # one deploy at a time, waiting up to 2 minutes for the previous one:",
        "  cryo lock run --wait 2m /srv/app -- ./deploy.sh --fast",
        "  # who holds it, and is that holder alive?",
        "  cryo lock status /srv/app",
        "  cryo lock status /srv/app --json | jq .holder.pid",
        "  # remove a dead holder's lock:",
        "  cryo lock break /srv/app",
        "",
        "See 'cryo lock COMMAND --help' for the exit codes of each command."
    })
public final class LockCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Created by picocli. */
  public LockCommand() {}

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }
}
