package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * What a reload to an application of state version {@code V} would strand: the users whose state
 * was written by a newer version, which {@code V} cannot read (a version reads its own and older
 * ones, through its upgrade). Asked by {@link Replacement} once the first new worker presented
 * itself (its presentation says its state version), before any old worker is quit.
 *
 * <p>Awake users are counted from the maps: every user living on a worker is frozen by it at its
 * application's state version (its presentation's). Frozen users are counted from their user
 * parcels' stamp ({@value #STATE_VERSION}, 1 when absent): one read of the user parcel per
 * frozen user (a user frozen by an earlier run of a newer version counts too, so the parcels are
 * read whatever the running workers say). A parcel that cannot be read is not counted (its wake would refuse
 * it whatever the version). Called on the reload's thread; reads the maps' snapshot and the
 * freezer, changes nothing.
 */
final class StrandedState {

  private static final System.Logger LOG = System.getLogger(StrandedState.class.getName());

  /** The key of a parcel that names the state version that wrote it (the worker's stamp). */
  static final String STATE_VERSION = "state_version";

  /**
   * The users a version cannot read.
   *
   * @param awake users living on workers of a newer state version
   * @param frozen frozen users whose parcels a newer version wrote
   * @param newest the newest state version among them
   */
  record Count(int awake, int frozen, int newest) {
    int total() {
      return awake + frozen;
    }
  }

  private StrandedState() {}

  /**
   * Counts what state version {@code version} cannot read.
   *
   * @param workers the running workers (their presentations say their state versions)
   * @return the count, empty when nothing would be stranded
   */
  static Optional<Count> of(int version, Collection<WorkerHandle> workers, Routing routing,
      Freezer freezer) {
    int awake = 0;
    int frozen = 0;
    int newest = 0;
    for (WorkerHandle worker : workers) {
      Integer theirs = worker.presentation() == null ? null
          : worker.presentation().stateVersion();
      if (theirs != null && theirs > version) {
        int users = routing.usersOn(worker.name()).size();
        awake += users;
        if (users > 0) {
          newest = Math.max(newest, theirs);
        }
      }
    }
    for (Map.Entry<String, Location> entry : routing.snapshot().users().entrySet()) {
      if (!(entry.getValue() instanceof Location.Frozen)) {
        continue;
      }
      long stamp;
      try {
        Optional<Object> parcel = freezer.readUserParcel(entry.getKey());
        if (parcel.isEmpty() || !(parcel.get() instanceof Map<?, ?> map)) {
          continue;
        }
        Object value = map.containsKey(STATE_VERSION) ? map.get(STATE_VERSION) : 1;
        if (!(value instanceof Number number)) {
          continue;
        }
        stamp = number.longValue();
      } catch (FreezerException | RuntimeException e) {
        LOG.log(Level.DEBUG, "the parcel of '" + entry.getKey() + "' could not be read for the"
            + " reload's check; not counted", e);
        continue;
      }
      if (stamp > version) {
        frozen++;
        newest = (int) Math.max(newest, Math.min(stamp, Integer.MAX_VALUE));
      }
    }
    return awake + frozen == 0 ? Optional.empty() : Optional.of(new Count(awake, frozen, newest));
  }
}
