package dev.cryo.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cryo freezer}: look into a freezer root from the shell. It only groups
 * {@link FreezerLsCommand ls}, {@link FreezerShowCommand show} and {@link FreezerDfCommand df}, which
 * all only read: none creates, changes or removes anything.
 */
@Command(
    name = "freezer",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    headerHeading = "%n",
    header = "Look into a freezer: its folders, parcels, semaphores and size.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "A freezer ROOT holds one folder per user, named by a key computed forward from the"
            + " user's identity (percent-encoding; never decoded back). A folder holds user.parcel"
            + " (the user's own store), one connection-KEY.parcel per connection, and the"
            + " semaphore .lock; the commander's own parcel, commander.parcel, sits at the root."
            + " Every parcel starts with a header (writer, time, cause, group, codec) and ends"
            + " with checksums: a torn or altered parcel is reported as corrupt.",
        "",
        "These commands only read: they create nothing, not even a missing ROOT."
    },
    commandListHeading = "%nCommands:%n",
    optionListHeading = "%nOptions:%n",
    subcommands = {FreezerLsCommand.class, FreezerShowCommand.class, FreezerDfCommand.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo freezer ls /srv/app/freezer",
        "  cryo freezer show /srv/app/freezer alice@example.org --json",
        "  cryo freezer df /srv/app/freezer",
        "",
        "See 'cryo freezer COMMAND --help' for the exit codes of each command."
    })
public final class FreezerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Created by picocli. */
  public FreezerCommand() {}

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }
}
