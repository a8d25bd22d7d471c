package dev.cryo.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.Freezer;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cryo freezer ls ROOT [--json]}: every folder of a freezer, its parcels with their sizes and
 * headers, its semaphore's holder and whether that holder lives, and the commander's parcel. It only
 * reads; a corrupt parcel is listed as such, never a reason to stop.
 */
@Command(
    name = "ls",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "List every folder of a freezer: parcels, headers, semaphore holders.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "For each folder (sorted by key): its key, its parcels (user.parcel first, then the"
            + " connections) with their size in bytes, each parcel's header (writer, cause,"
            + " group, age) and whether it looks whole (its header's checksum agrees, and its"
            + " lengths add up to its size: only the first bytes of a parcel are read, so a"
            + " payload altered in place is caught by 'cryo freezer show', not here), and its"
            + " semaphore: free, or its holder and whether that holder is alive, dead or unknown,"
            + " judged as 'cryo lock status' judges a lock. Then the commander's parcel, if any."
            + " A torn or altered parcel is listed as corrupt with the problem; its header is"
            + " still shown when the header itself is whole. Payloads are not decoded: see"
            + " 'cryo freezer show'. A folder whose parcels the running application could not"
            + " read (written by a state version it does not read) is marked UNREADABLE, with"
            + " the reason its worker noted; its parcels are kept as they were.",
        "",
        "With --json, one JSON object on one line; every field is always present (null when it"
            + " does not apply):",
        "  {\"root\": \"/abs/ROOT\", \"folders\": [{\"key\": \"alice\", \"folder\": \"/abs/ROOT/alice\",",
        "     \"parcels\": [PARCEL...], \"semaphore\": {as 'cryo lock status --json'},",
        "     \"unreadable\": null | HEADER (the note of the worker that could not read it; its",
        "     cause says why)}...],",
        "   \"commander\": PARCEL | null}",
        "  PARCEL: {\"file\": \"connection-c1.parcel\", \"kind\": \"user\" | \"connection\" | \"commander\",",
        "     \"connection\": \"c1\" | null, \"size\": 1234, \"state\": \"ok\" | \"corrupt_parcel\" | ...,",
        "     \"problem\": \"...\" | null, \"header\": null | {\"writer\": \"w1\",",
        "     \"writtenAt\": \"2026-11-29T17:04:59.547Z\", \"ageSeconds\": 12, \"cause\": \"freeze\",",
        "     \"group\": \"g1\", \"codec\": \"smile\"}}"
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:listed; every parcel is whole and every semaphore readable",
        " 1:listed; some parcel is not whole (corrupt, newer format, not a file) or some"
            + " semaphore is not a readable record",
        "64:the command line is wrong",
        "66:ROOT does not exist or is not a directory (one line on stderr; nothing is created)",
        "74:ROOT or a folder cannot be listed"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo freezer ls /srv/app/freezer",
        "  cryo freezer ls /srv/app/freezer --json | jq -r '.folders[].key'"
    })
public final class FreezerLsCommand implements Callable<Integer> {

  /** {@code cryo freezer ls}: something listed is not whole or not readable. */
  public static final int EXIT_DAMAGED = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object (described above) instead of text.")
  boolean json;

  @Parameters(index = "0", paramLabel = "ROOT", description = "The freezer root; never created.")
  Path root;

  /** Created by picocli. */
  public FreezerLsCommand() {}

  /**
   * One folder.
   *
   * @param key its name, the key computed from its user's identity
   * @param folder its absolute path
   * @param parcels its parcels
   * @param semaphore its semaphore, as {@code cryo lock status} reports a lock
   * @param unreadable the header of its {@link Freezer#UNREADABLE_NOTE} (the running application
   *     could not read its parcels; the cause says why), or null
   */
  @JsonPropertyOrder({"key", "folder", "parcels", "semaphore", "unreadable"})
  record Folder(String key, String folder, List<FreezerView.ParcelFile> parcels,
      LockStatusReport semaphore, FreezerView.Header unreadable) {}

  /**
   * The listing.
   *
   * @param root the root's absolute path
   * @param folders every folder, sorted by key
   * @param commander the commander's parcel, or null
   */
  @JsonPropertyOrder({"root", "folders", "commander"})
  record Listing(String root, List<Folder> folders, FreezerView.ParcelFile commander) {}

  @Override
  public Integer call() throws JsonProcessingException {
    Path rootPath = FreezerView.existingRoot(root);
    Instant now = Instant.now();
    List<Folder> folders = new ArrayList<>();
    boolean damaged = false;
    for (String key : FreezerView.folderKeys(rootPath)) {
      Path folder = rootPath.resolve(key);
      List<FreezerView.ParcelFile> parcels = FreezerView.parcels(folder, now, false);
      LockStatusReport semaphore = FreezerView.semaphore(folder, now);
      damaged |= parcels.stream().anyMatch(p -> !p.state().equals(FreezerView.OK))
          || !(semaphore.state().equals(LockStatusReport.FREE)
              || semaphore.state().equals(LockStatusReport.HELD));
      folders.add(new Folder(key, folder.toString(), parcels, semaphore,
          FreezerView.unreadableNote(folder, now)));
    }
    Path commanderPath = rootPath.resolve(Freezer.COMMANDER_PARCEL);
    FreezerView.ParcelFile commander = Files.exists(commanderPath, LinkOption.NOFOLLOW_LINKS)
        ? FreezerView.parcel(commanderPath, now, false) : null;
    damaged |= commander != null && !commander.state().equals(FreezerView.OK);
    Listing listing = new Listing(rootPath.toString(), folders, commander);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(JSON.writeValueAsString(listing));
    } else {
      out.print(toText(listing));
    }
    out.flush();
    return damaged ? EXIT_DAMAGED : ExitCodes.OK;
  }

  static String toText(Listing listing) {
    StringBuilder text = new StringBuilder(listing.root()).append(": ")
        .append(listing.folders().size()).append(listing.folders().size() == 1 ? " folder" : " folders")
        .append(listing.commander() == null ? ", no commander parcel" : ", a commander parcel")
        .append('\n');
    for (Folder folder : listing.folders()) {
      text.append(folder.key()).append('\n');
      text.append("  semaphore  ").append(FreezerView.semaphoreText(folder.semaphore())).append('\n');
      if (folder.unreadable() != null) {
        text.append("  UNREADABLE by the running version, parcels kept: ")
            .append(folder.unreadable().cause()).append(" (noted by ")
            .append(folder.unreadable().writer()).append(", ")
            .append(FreezerView.age(folder.unreadable().ageSeconds())).append(")\n");
      }
      if (folder.parcels().isEmpty()) {
        text.append("  (no parcels)\n");
      }
      for (FreezerView.ParcelFile parcel : folder.parcels()) {
        appendParcel(text, "  ", parcel);
      }
    }
    if (listing.commander() != null) {
      text.append("commander\n");
      appendParcel(text, "  ", listing.commander());
    }
    return text.toString();
  }

  static void appendParcel(StringBuilder text, String indent, FreezerView.ParcelFile parcel) {
    text.append(indent).append(parcel.file()).append("  ").append(parcel.size()).append(" bytes");
    if (!parcel.state().equals(FreezerView.OK)) {
      text.append("  ").append(parcel.state().toUpperCase(java.util.Locale.ROOT));
    }
    text.append('\n');
    if (parcel.header() != null) {
      text.append(indent).append("  ").append(parcel.header().toText()).append('\n');
    }
    if (parcel.problem() != null) {
      text.append(indent).append("  ").append(parcel.problem()).append('\n');
    }
  }
}
