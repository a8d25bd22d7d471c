package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.freezer.ParcelTree;
import dev.cryo.wire.protocol.Grant;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a start takes over from the run before it, in this order: its reboot data (a drain's,
 * {@link RebootData}); else its journal ({@link JournalReplay}: the run was killed): its frozen
 * users come back, and so do the users that were awake whose parcel the freezer holds — written by
 * their worker when it lost its commander ({@code WorkerMain}), named with its age — when it is of
 * the stay the journal last knew them in or a newer one, and so do the users born after its last
 * record whose worker froze them so in a stay of that run; each such user comes back with the
 * connections and pages his parcels hold, which are newer than the journal's; the awake users
 * without such a parcel are
 * lost (named, a parcel of an earlier stay named as residue, their folders dropped with every other
 * folder nobody answers for); else nothing, and the working freezer is wiped. The start
 * calls this only once no worker of the run before still writes ({@code FreezerWriters}). A journal
 * damaged before its last record is adopted not at all: it is moved aside under a dated name
 * ({@code DIR/journal-corrupt-…}), reported, and the freezer is wiped. A journal left beside reboot
 * data is older than it: the new run's journal replaces it.
 *
 * <p><b>Write-ahead.</b> {@link #at} reads and consumes nothing that holds a user; the start adopts
 * the maps, writes its own journal (which then durably holds every carried user), and only then
 * {@link Found#consume}s what it found (the reboot data renamed back, the item dropped, the
 * folders nobody answers for dropped). A start that fails after that {@link Found#handBack}s: the
 * reboot data is committed again from its maps, or its journal is kept, so the next start finds
 * every carried user as this one found him.
 *
 * <p>Runs once per start, under the run lock, before any worker; not thread-safe.
 */
final class Adoption {

  /** The prefix of a damaged journal moved aside. */
  static final String CORRUPT_JOURNAL_PREFIX = "journal-corrupt-";

  /** How many characters of the parcels' ages the start's line shows at most. */
  private static final int AGES_SHOWN = 2_000;

  private Adoption() {}

  /** Where the adopted maps came from. */
  enum Source {
    /** A drain's reboot data, {@code DIR/reboot}. */
    REBOOT,
    /** A drain's item left in the working root (killed before its rename). */
    IN_PLACE,
    /** The journal of a run that was killed. */
    JOURNAL,
    /** Nothing that reads: the run starts with no user. */
    NOTHING
  }

  /** What the start found, and whether it consumed it yet. Used by the start's thread only. */
  static final class Found {
    private final Optional<CommanderItem> item;
    private final List<String> lost;
    private final List<String> restored;
    private final String line;
    private final Source source;
    private boolean consumed;

    private Found(Optional<CommanderItem> item, List<String> lost, List<String> restored,
        String line, Source source) {
      this.item = item;
      this.lost = List.copyOf(lost);
      this.restored = List.copyOf(restored);
      this.line = line;
      this.source = source;
    }

    /** The maps to adopt, if any. */
    Optional<CommanderItem> item() {
      return item;
    }

    /**
     * The users of the run before that were awake when it was killed and left no parcel: lost,
     * sorted.
     */
    List<String> lost() {
      return lost;
    }

    /**
     * The users of the run before that come back from a checkpoint (their worker died with the
     * commander): what they wrote after it is lost. Sorted.
     */
    List<String> restored() {
      return restored;
    }

    /** The start's line about it, or null when there was nothing. */
    String line() {
      return line;
    }

    /** Where the maps came from. */
    Source source() {
      return source;
    }

    /**
     * Consumes what was found, now that the new run's journal durably holds every user of
     * {@link #item}: the reboot data renamed back onto the working root and its item dropped, or
     * the folders nobody answers for dropped (a journal's), or the working root wiped (nothing).
     */
    void consume(RunHome home, Freezer freezer) throws FreezerException {
      switch (source) {
        case REBOOT -> RebootData.consume(freezer, RebootData.Where.REBOOT, home.path());
        case IN_PLACE -> RebootData.consume(freezer, RebootData.Where.IN_PLACE, home.path());
        case JOURNAL -> {
          Set<String> claimed = new HashSet<>();
          for (String user : item.orElseThrow().frozen()) {
            claimed.add(Freezer.key(user));
          }
          freezer.cleanupFrozen(claimed);
        }
        case NOTHING -> freezer.wipeRoot(); // the maps are empty: every folder left is an orphan
      }
      consumed = true;
    }

    /**
     * Gives back what a start that did not complete adopted, so that the next start finds it: when
     * reboot data (or an item in place) was consumed, {@code maps} (the run's maps now, every user
     * in it frozen) are committed again as reboot data and the journal is removed; otherwise the
     * journal is kept (it holds every carried user) and nothing else is touched.
     *
     * @return where the users are kept, for the start's line
     * @throws FreezerException when the reboot data cannot be committed again (the journal, kept,
     *     still holds the users)
     */
    String handBack(RunHome home, Freezer freezer, CommanderItem maps)
        throws FreezerException, IOException {
      if ((source == Source.REBOOT || source == Source.IN_PLACE) && consumed) {
        Path reboot = RebootData.commit(home.path(), freezer, maps, () -> { });
        home.remove(Journal.FILE_NAME);
        return "the reboot data " + reboot;
      }
      if (source == Source.REBOOT) {
        home.remove(Journal.FILE_NAME); // the reboot data was not touched: it is newer
        return "the reboot data " + home.shown(RebootData.DIRECTORY);
      }
      if (source == Source.IN_PLACE) { // not touched: the next start adopts it in place again
        return "the item in the freezer " + freezer.root().resolve(Freezer.COMMANDER_PARCEL);
      }
      return "the journal " + home.shown(Journal.FILE_NAME);
    }
  }

  /**
   * Reads what {@code home} holds, consuming nothing (see the class description). The journal is
   * read through the home's rule ({@link RunHome#read}): a journal that breaks it (a link, a FIFO,
   * another user's) is refused, never read as "no journal" (which would wipe the freezer). What
   * does not read is moved aside here, and the working root wiped: nothing that reads is lost.
   */
  static Found at(RunHome home, Freezer freezer, Instant now)
      throws IOException, FreezerException {
    Path journal = home.shown(Journal.FILE_NAME);
    RebootData.Taken taken = RebootData.read(home.path(), freezer, now);
    if (taken.item().isPresent()) {
      return found(taken.item(), List.of(), taken.line(), taken.where() == RebootData.Where.REBOOT
          ? Source.REBOOT : Source.IN_PLACE);
    }
    if (taken.line() != null) { // moved aside: the journal beside it is older, and not adopted
      home.remove(Journal.FILE_NAME);
      return found(Optional.empty(), List.of(), taken.line(), Source.NOTHING);
    }
    Optional<byte[]> bytes = home.read(Journal.FILE_NAME, JournalReplay.MAX_BYTES);
    if (bytes.isEmpty()) {
      return found(Optional.empty(), List.of(), null, Source.NOTHING);
    }
    JournalReplay replay = JournalReplay.replay(bytes.get(), journal);
    if (replay.corruption().isPresent()) {
      Path aside = RebootData.moveAside(home.path(), journal, now, CORRUPT_JOURNAL_PREFIX);
      return found(Optional.empty(), List.of(), "the journal of the run before was not adopted: "
          + replay.corruption().get() + "; it was moved aside to " + aside + " and this run"
          + " starts with no user (its frozen users' state is lost)", Source.NOTHING);
    }
    Map<String, UserParcels> parcelled = new TreeMap<>();
    List<String> lost = new ArrayList<>();
    List<String> older = new ArrayList<>();
    List<String> restored = new ArrayList<>();
    StringBuilder ages = new StringBuilder();
    for (String user : replay.awake()) {
      Optional<ParcelHeader> header;
      Map<?, ?> payload;
      try {
        header = freezer.userParcelHeader(user);
        payload = header.isEmpty() ? Map.of() : freezer.readUserParcel(user)
            .map(tree -> tree instanceof Map<?, ?> map ? map : Map.of()).orElse(Map.of());
      } catch (FreezerException e) { // a parcel that does not read is no state to come back to
        header = Optional.empty();
        payload = Map.of();
      }
      long written = Grant.generationOf(payload);
      long stay = replay.stayGeneration(user);
      if (header.isPresent() && written < stay) { // residue of an earlier stay, never him
        older.add(user + " (parcel " + written + ", stay " + stay + ")");
        lost.add(user);
      } else if (header.isPresent()) {
        parcelled.put(user, UserParcels.read(freezer, user, payload));
        age(ages, user, header.get());
        if (ParcelHeader.CHECKPOINT_CAUSE.equals(header.get().cause())) {
          restored.add(user); // his worker died too: what he wrote since is lost
        }
      } else {
        lost.add(user);
      }
    }
    List<String> born = bornAfter(replay, freezer, parcelled);
    born.forEach(user -> age(ages, user, null));
    CommanderItem item = replay.item(now, parcelled, handedOver(replay.frozen(), freezer));
    return new Found(Optional.of(item), lost, restored, "the run before ended without a drain (killed):"
        + " its journal was adopted" + (replay.tornTail() ? " (a torn last record was dropped)" : "")
        + ": " + (item.frozen().size() - parcelled.size()) + " frozen users come back; "
        + (parcelled.size() - born.size()) + " users that were awake, and " + born.size()
        + " born after its last record, come back from their newest parcel"
        + (parcelled.isEmpty() ? "" : " (" + ages + (ages.length() >= AGES_SHOWN ? ", …" : "")
            + ")")
        + "; " + lost.size() + " users that were awake left no parcel of their last stay and"
        + " are lost" + (lost.isEmpty() ? "" : " (they must log in again): " + lost)
        + (older.isEmpty() ? "" : "; of them, these left only a parcel older than the stay the"
            + " journal knows, residue never adopted: " + older)
        + (restored.isEmpty() ? "" : "; of them, these come back from a checkpoint (their"
            + " worker died too: what they wrote after it is lost): " + restored)
        + "; the folders nobody answers for are dropped", Source.JOURNAL);
  }

  /**
   * The users the journal never heard of whose worker froze them when it lost its commander, in a
   * stay of the run that wrote the journal: born (or logged into) after its last record on disk.
   * Each is put in {@code parcelled}; returned sorted. A folder whose user parcel does not read,
   * names another folder's user, is of another cause or of an earlier run is nobody's (swept).
   */
  private static List<String> bornAfter(JournalReplay replay, Freezer freezer,
      Map<String, UserParcels> parcelled) throws FreezerException {
    long first = replay.firstGeneration();
    if (first <= 0) { // a journal that does not say which generations its run gave
      return List.of();
    }
    Set<String> known = new HashSet<>();
    replay.frozen().forEach(user -> known.add(Freezer.key(user)));
    replay.awake().forEach(user -> known.add(Freezer.key(user)));
    List<String> born = new ArrayList<>();
    for (String key : freezer.folderKeys()) {
      if (known.contains(key)) {
        continue;
      }
      Optional<Freezer.Owned> owned;
      try {
        owned = freezer.readUserParcelInFolder(key);
      } catch (FreezerException e) {
        continue;
      }
      if (owned.isEmpty() || replay.knows(owned.get().user())
          || !ParcelHeader.COMMANDER_LOST_CAUSE.equals(owned.get().header().cause())
          || !(owned.get().payload() instanceof Map<?, ?> payload)
          || Grant.generationOf(payload) < first) {
        continue;
      }
      String user = owned.get().user();
      parcelled.put(user, UserParcels.read(freezer, user, payload));
      born.add(user);
    }
    born.sort(null);
    return born;
  }

  /**
   * For each of {@code frozen}, the connections whose parcels a login tail handed over to him and
   * left in his folder, with their pages: the login's link may be in the journal's lost last
   * batch, or have come after a drain's snapshot of the maps. A folder that cannot be listed gives
   * none.
   */
  static Map<String, Map<String, List<String>>> handedOver(List<String> frozen,
      Freezer freezer) {
    Map<String, Map<String, List<String>>> found = new TreeMap<>();
    for (String user : frozen) {
      Map<String, Object> parcels;
      try {
        parcels = freezer.connectionParcelsOf(user);
      } catch (FreezerException e) {
        continue;
      }
      parcels.forEach((connection, parcel) -> {
        if (parcel instanceof Map<?, ?> map && ParcelTree.handedOver(map)) {
          found.computeIfAbsent(user, u -> new TreeMap<>()).put(connection,
              ParcelTree.pageIds(map));
        }
      });
    }
    return found;
  }

  /** Appends {@code user}'s parcel age to the start's line, up to {@link #AGES_SHOWN}. */
  private static void age(StringBuilder ages, String user, ParcelHeader header) {
    if (ages.length() < AGES_SHOWN) {
      ages.append(ages.length() == 0 ? "" : ", ").append(user);
      if (header != null) {
        ages.append(" (written ").append(header.writtenAt()).append(", ").append(header.cause())
            .append(')');
      } else {
        ages.append(" (born after the journal)");
      }
    }
  }

  private static Found found(Optional<CommanderItem> item, List<String> lost, String line,
      Source source) {
    return new Found(item, lost, List.of(), line, source);
  }
}
