package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sweep: drops the freezer's orphan folders, those no identity of the maps answers for. The
 * keys claimed are computed forward from the identities the maps know ({@link Freezer#key}), never
 * decoded back from a folder's name, and subtracted from the folders on disk.
 *
 * <p>The folders are listed before the identities are read, and only folders of that listing are
 * candidates: a user born meanwhile, whose first folder appears after the listing, is never swept
 * for being newer than the maps' copy.
 *
 * <p>Thread-safety: one round at a time ({@link #run} is synchronized).
 */
final class Sweep {

  private static final System.Logger LOG = System.getLogger(Sweep.class.getName());

  private final Routing routing;
  private final Freezer freezer;

  Sweep(Routing routing, Freezer freezer) {
    this.routing = routing;
    this.freezer = freezer;
  }

  /** One round: the keys of the folders swept, sorted. */
  synchronized List<String> run() throws IOException {
    Set<String> seen = freezer.folderKeys();
    Set<String> claimed = new HashSet<>();
    for (String user : routing.identities()) {
      claimed.add(Freezer.key(user));
    }
    List<String> swept = freezer.cleanupFrozen(claimed, seen);
    if (!swept.isEmpty()) {
      LOG.log(Level.INFO, "the sweep dropped " + swept.size() + " orphan folders");
      routing.note("sweep", java.util.Map.of("swept", swept.size(), "keys", swept));
    }
    return swept;
  }
}
