package dev.cryo.cli;

import dev.cryo.freezer.FreezerException;
import dev.cryo.freezer.FreezerUsage;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cryo freezer df ROOT}: the free space of the file system the freezer lives on, in percent
 * of the whole file system (as the freezer's storage-free figure), and the freezer's own size.
 */
@Command(
    name = "df",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Say how full the freezer's file system is, and how big the freezer is.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Prints two lines: the space still usable by this process on ROOT's file system, in"
            + " percent of the whole file system (the figure the freezer reports as its storage"
            + " free percent) and in bytes; then the freezer's own size: the bytes of its files,"
            + " how many files and how many folders, the root not counted. Symbolic links are"
            + " counted as files and never followed."
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:printed",
        "64:the command line is wrong",
        "66:ROOT does not exist or is not a directory (one line on stderr; nothing is created)",
        "74:the file system cannot be asked, or ROOT cannot be walked"
    },
    footerHeading = "%nExamples:%n",
    footer = {"  cryo freezer df /srv/app/freezer"})
public final class FreezerDfCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ROOT", description = "The freezer root; never created.")
  Path root;

  /** Created by picocli. */
  public FreezerDfCommand() {}

  @Override
  public Integer call() {
    Path rootPath = FreezerView.existingRoot(root);
    FreezerUsage usage;
    try {
      usage = FreezerUsage.measure(rootPath);
    } catch (IOException e) {
      throw new CommandFailure(ExitCodes.IO, FreezerException.Reason.IO_FAILURE.code(),
          "could not measure the freezer root " + rootPath + " (its file system's free space,"
              + " then its files): " + e, e);
    }
    PrintWriter out = spec.commandLine().getOut();
    out.printf(Locale.ROOT, "%s: %.1f%% free (%d of %d bytes usable)%n", rootPath,
        usage.freePercent(), usage.usableBytes(), usage.totalBytes());
    out.printf(Locale.ROOT, "freezer: %d bytes in %d %s, %d %s%n", usage.bytes(), usage.files(),
        usage.files() == 1 ? "file" : "files", usage.folders(),
        usage.folders() == 1 ? "folder" : "folders");
    out.flush();
    return ExitCodes.OK;
  }
}
