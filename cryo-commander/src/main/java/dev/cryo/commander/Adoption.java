package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import dev.cryo.freezer.ParcelHeader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a start takes over from the run before it, in this order: its reboot data (a drain's,
 * {@link RebootData}); else its journal ({@link JournalReplay}: the run was killed): its frozen
 * users come back, and so do the users that were awake whose parcel the freezer holds — written by
 * their worker when it lost its commander ({@code WorkerMain}), or else an older one, named with
 * its age; the awake users without a parcel are lost (named, their folders dropped with every
 * other folder nobody answers for); else nothing, and the working freezer is wiped. The start
 * calls this only once no worker of the run before still writes ({@code FreezerWriters}). A journal
 * damaged before its last record is adopted not at all: it is moved aside under a dated name
 * ({@code DIR/journal-corrupt-…}), reported, and the freezer is wiped. A journal left beside reboot
 * data is older than it and removed.
 *
 * <p>Runs once per start, under the run lock, before any worker; not thread-safe.
 */
final class Adoption {

  /** The prefix of a damaged journal moved aside. */
  static final String CORRUPT_JOURNAL_PREFIX = "journal-corrupt-";

  /** How many characters of the parcels' ages the start's line shows at most. */
  private static final int AGES_SHOWN = 2_000;

  private Adoption() {}

  /**
   * What the start found.
   *
   * @param item the maps to adopt, if any
   * @param lost the users of the run before that were awake when it was killed and left no
   *     parcel: lost, sorted
   * @param line the start's line about it, or null when there was nothing
   */
  record Found(Optional<CommanderItem> item, List<String> lost, String line) {}

  /**
   * Takes over what {@code home} holds; leaves {@code freezer}'s root ready for the new run. The
   * journal is read through the home's rule ({@link RunHome#read}): a journal that breaks it (a
   * link, a FIFO, another user's) is refused, never read as "no journal" (which would wipe the
   * freezer).
   */
  static Found at(RunHome home, Freezer freezer, Instant now)
      throws IOException, FreezerException {
    Path journal = home.shown(Journal.FILE_NAME);
    RebootData.Taken taken = RebootData.take(home.path(), freezer, now);
    if (taken.item().isPresent() || taken.line() != null) {
      home.remove(Journal.FILE_NAME); // the reboot data (or what was moved aside) is newer
      return new Found(taken.item(), List.of(), taken.line());
    }
    Optional<byte[]> bytes = home.read(Journal.FILE_NAME, JournalReplay.MAX_BYTES);
    if (bytes.isEmpty()) {
      freezer.wipeRoot(); // a new run: the maps are empty, so every folder left is an orphan
      return new Found(Optional.empty(), List.of(), null);
    }
    JournalReplay replay = JournalReplay.replay(bytes.get(), journal);
    if (replay.corruption().isPresent()) {
      Path aside = RebootData.moveAside(home.path(), journal, now, CORRUPT_JOURNAL_PREFIX);
      freezer.wipeRoot();
      return new Found(Optional.empty(), List.of(), "the journal of the run before was not adopted:"
          + " " + replay.corruption().get() + "; it was moved aside to " + aside + " and this run"
          + " starts with no user (its frozen users' state is lost)");
    }
    List<String> parcelled = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    StringBuilder ages = new StringBuilder();
    for (String user : replay.awake()) {
      Optional<ParcelHeader> header;
      try {
        header = freezer.userParcelHeader(user);
      } catch (FreezerException e) { // a parcel that does not read is no state to come back to
        header = Optional.empty();
      }
      if (header.isPresent()) {
        parcelled.add(user);
        if (ages.length() < AGES_SHOWN) {
          ages.append(ages.length() == 0 ? "" : ", ").append(user).append(" (written ")
              .append(header.get().writtenAt()).append(", ").append(header.get().cause())
              .append(')');
        }
      } else {
        lost.add(user);
      }
    }
    CommanderItem item = replay.item(now, parcelled);
    Set<String> claimed = new HashSet<>();
    for (String user : item.frozen()) {
      claimed.add(Freezer.key(user));
    }
    List<String> swept = freezer.cleanupFrozen(claimed);
    home.remove(Journal.FILE_NAME);
    return new Found(Optional.of(item), lost, "the run before ended without a drain (killed):"
        + " its journal was adopted" + (replay.tornTail() ? " (a torn last record was dropped)" : "")
        + ": " + (item.frozen().size() - parcelled.size()) + " frozen users come back; "
        + parcelled.size() + " users that were awake come back from their newest parcel"
        + (parcelled.isEmpty() ? "" : " (" + ages + (ages.length() >= AGES_SHOWN ? ", …" : "")
            + ")")
        + "; " + lost.size() + " users that were awake left no parcel and are lost"
        + (lost.isEmpty() ? "" : " (they must log in again): " + lost)
        + "; " + swept.size() + " folders nobody answers for were dropped");
  }
}
