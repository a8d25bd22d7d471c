package dev.cryo.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.FolderKeys;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cryo freezer show ROOT USER [--json]}: the folder key computed from USER, the user's
 * semaphore, and every parcel of the user with its header and its payload decoded to plain data.
 * It only reads.
 */
@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    headerHeading = "%n",
    header = "Show what the freezer holds for one user: key, headers, payloads.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = {
        "Computes the folder key of USER (forward, as the freezer does), then shows the folder's"
            + " semaphore and each parcel: its size, its header, and its payload decoded with the"
            + " codec its header names (smile, the freezer's default, or cbor) to plain data,"
            + " printed as indented JSON. A parcel longer than the freezer's default cap (64 MiB)"
            + " is reported and not read. Byte strings are"
            + " shown as {\"bytes\": LENGTH, \"base64\": \"...\"}. The decoder never instantiates"
            + " a class named by the file. A parcel that is not whole, or whose payload does not"
            + " decode, is shown with the problem and no payload.",
        "",
        "With --json, one JSON object on one line; every field is always present:",
        "  {\"root\": \"/abs/ROOT\", \"user\": \"alice\", \"key\": \"alice\",",
        "   \"folder\": \"/abs/ROOT/alice\", \"exists\": true | false,",
        "   \"semaphore\": {as 'cryo lock status --json'} | null,   (null when no folder)",
        "   \"parcels\": [{PARCEL as in 'cryo freezer ls --json', \"payload\": DATA | null}...]}"
    },
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        " 0:shown; every parcel is whole and decodes",
        " 1:shown; some parcel is not whole or its payload does not decode",
        " 2:nothing is frozen for USER: there is no folder with its key",
        "64:the command line is wrong",
        "66:ROOT does not exist or is not a directory (one line on stderr; nothing is created)",
        "74:ROOT or the folder cannot be listed"
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  cryo freezer show /srv/app/freezer alice@example.org",
        "  cryo freezer show /srv/app/freezer alice@example.org --json | jq '.parcels[].payload'"
    })
public final class FreezerShowCommand implements Callable<Integer> {

  /** {@code cryo freezer show}: some parcel is not whole or does not decode. */
  public static final int EXIT_DAMAGED = 1;
  /** {@code cryo freezer show}: there is no folder for the user. */
  public static final int EXIT_NOTHING_FROZEN = 2;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object (described above) instead of text.")
  boolean json;

  @Parameters(index = "0", paramLabel = "ROOT", description = "The freezer root; never created.")
  Path root;

  @Parameters(index = "1", paramLabel = "USER", description = "The user's identity, as the"
      + " application names him; its key is computed from it.")
  String user;

  /** Created by picocli. */
  public FreezerShowCommand() {}

  /**
   * One parcel with its payload.
   *
   * @param payload the payload as plain data, or null when it is not whole, does not decode, or is
   *     null itself
   */
  @JsonPropertyOrder({"file", "kind", "connection", "size", "state", "problem", "header", "payload"})
  record Shown(String file, String kind, String connection, long size, String state,
      String problem, FreezerView.Header header, Object payload) {

    static Shown of(FreezerView.ParcelFile parcel) {
      return new Shown(parcel.file(), parcel.kind(), parcel.connection(), parcel.size(),
          parcel.state(), parcel.problem(), parcel.header(), parcel.payload().orElse(null));
    }
  }

  /**
   * What {@code show} found.
   *
   * @param root the root's absolute path
   * @param user the identity given
   * @param key its folder key
   * @param folder the folder's absolute path
   * @param exists whether the folder exists
   * @param semaphore the folder's semaphore, or null when there is no folder
   * @param parcels its parcels
   */
  @JsonPropertyOrder({"root", "user", "key", "folder", "exists", "semaphore", "parcels"})
  record Showing(String root, String user, String key, String folder, boolean exists,
      LockStatusReport semaphore, List<Shown> parcels) {}

  @Override
  public Integer call() throws JsonProcessingException {
    Path rootPath = FreezerView.existingRoot(root);
    Instant now = Instant.now();
    String key = FolderKeys.key(user);
    Path folder = rootPath.resolve(key);
    boolean exists = Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS);
    List<FreezerView.ParcelFile> parcels =
        exists ? FreezerView.parcels(folder, now, true) : List.of();
    Showing showing = new Showing(rootPath.toString(), user, key, folder.toString(), exists,
        exists ? FreezerView.semaphore(folder, now) : null,
        parcels.stream().map(Shown::of).toList());
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(JSON.writeValueAsString(showing));
    } else {
      out.print(toText(showing));
    }
    out.flush();
    if (!exists) {
      return EXIT_NOTHING_FROZEN;
    }
    return parcels.stream().allMatch(p -> p.state().equals(FreezerView.OK))
        ? ExitCodes.OK : EXIT_DAMAGED;
  }

  static String toText(Showing showing) throws JsonProcessingException {
    StringBuilder text = new StringBuilder();
    text.append("user       ").append(FreezerView.quoted(showing.user())).append('\n');
    text.append("key        ").append(showing.key()).append('\n');
    text.append("folder     ").append(showing.folder());
    if (!showing.exists()) {
      text.append(" (absent: nothing is frozen for this user)\n");
      return text.toString();
    }
    text.append('\n');
    text.append("semaphore  ").append(FreezerView.semaphoreText(showing.semaphore())).append('\n');
    if (showing.parcels().isEmpty()) {
      text.append("(no parcels)\n");
    }
    for (Shown parcel : showing.parcels()) {
      text.append(parcel.file()).append("  ").append(parcel.size()).append(" bytes");
      if (!parcel.state().equals(FreezerView.OK)) {
        text.append("  ").append(parcel.state().toUpperCase(java.util.Locale.ROOT));
      }
      text.append('\n');
      if (parcel.header() != null) {
        text.append("  ").append(parcel.header().toText()).append('\n');
      }
      if (parcel.problem() != null) {
        text.append("  ").append(parcel.problem()).append('\n');
      } else {
        String pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(parcel.payload());
        text.append("  payload:\n");
        for (String line : pretty.split("\\R")) {
          text.append("    ").append(line).append('\n');
        }
      }
    }
    return text.toString();
  }
}
