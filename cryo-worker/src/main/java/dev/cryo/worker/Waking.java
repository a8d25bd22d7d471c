package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelTree;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.wire.protocol.AnnouncementKind;
import dev.cryo.wire.protocol.RefusalReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The waking of a {@link Worker}'s users: the wake of a user marked {@code unfreezing} (one disk
 * trip for a burst of calls, which wait for its transition), and the adoption of a connection
 * parcelled in the user's folder (one disk trip per connection however many calls ask).
 *
 * <p>Thread-safe, with the worker's locking: each disk trip runs on the disk executor with the
 * user's semaphore held and no lock held while reading and dropping parcels; the rows are then
 * rebuilt and the births published under the user's tenant lock, and delivered after it. A failed
 * wake leaves no row and no semaphore; a failed rebuild puts the parcels it read back.
 */
final class Waking {

  // the worker's own logger, so the log lines keep their origin
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final Worker worker;
  private final String name;
  private final String group;
  private final Freezer freezer;
  private final RegisterRegistry registry;
  private final Announcer announcer;
  private final SemaphoreTrips trips;
  private final Departures departures;

  Waking(Worker worker, String name, String group, Freezer freezer, RegisterRegistry registry,
      Announcer announcer, SemaphoreTrips trips, Departures departures) {
    this.worker = worker;
    this.name = name;
    this.group = group;
    this.freezer = freezer;
    this.registry = registry;
    this.announcer = announcer;
    this.trips = trips;
    this.departures = departures;
  }

  /**
   * Wakes a tenant marked UNFREEZING, whose placeholder row exists, from a user parcel written at
   * {@code parcelGeneration} or later; completes its transition.
   */
  void startWake(Tenant tenant, long parcelGeneration) {
    String user = tenant.user;
    trips.run(() -> freezer, user, "wake", into -> { // a user wakes from where he is
      wake(tenant, parcelGeneration);
      return null;
    }).whenComplete((ignored, failure) -> {
      if (failure == null) {
        // After the delivery and the release: a woken caller has heard the adoption, and the
        // semaphore is free again.
        tenant.wakeSettled();
        departures.kickIfFlagged(tenant);
      } else {
        Throwable cause = Worker.unwrap(failure);
        LOG.log(Level.WARNING, "waking '" + user + "' on worker " + name + " failed; no row and no"
            + " semaphore are left and the next call may retry", cause);
        tenant.lock.lock();
        try {
          if (registry.userItems().contains(user)) {
            registry.dropUser(user); // the placeholder, never announced
          }
          worker.leave(tenant, "its wake failed");
          tenant.wakeFailed(cause);
        } finally {
          tenant.lock.unlock();
        }
        departures.checkQuitFinished();
      }
    });
  }

  /**
   * The disk trip of a wake, semaphore held: read, rebuild, announce. What was read stays in the
   * freezer, the user parcel set aside ({@link Freezer#WOKEN_PARCEL}), until this stay writes his
   * parcels (a checkpoint, a freeze) or ends without the freezer ({@link Checkpoints#left}):
   * should his worker die before, the commander puts it back and freezes him at it. Should the
   * commander lose the record of this wake in a crash, his worker freezes him anew when it loses
   * its wire ({@code WorkerMain}), and the next start waits for that freeze. A wake at parcel
   * generation 0 that finds no user parcel but connections login tails handed to him (the
   * commander kept him frozen for them when his worker dropped him) makes him anew, empty, with
   * them.
   */
  private void wake(Tenant tenant, long parcelGeneration) throws IOException {
    String user = tenant.user;
    Map<?, ?> userParcel = (Map<?, ?>) freezer.readUserParcel(user).orElse(null);
    Map<String, Map<?, ?>> handedOnly = userParcel == null && parcelGeneration == 0
        ? handedOverTo(user) : Map.of();
    if (!handedOnly.isEmpty()) {
      // Kept frozen for connections logins handed to him after his worker dropped his state: he
      // wakes empty, with them (the commander's generation 0 says no user parcel is his state).
      userParcel = Map.of(Parcels.STATE_VERSION, worker.stateVersion());
    }
    if (userParcel == null) {
      throw new WorkerException(RefusalReason.NO_PARCEL, user, "the call brought the"
          + " verdict that '" + user + "' is frozen, but the freezer at " + freezer.root()
          + " holds no parcel of his; nothing was created, nothing was announced and the"
          + " semaphore was given back: the maps are wrong about him — find where his parcel went"
          + " (another freezer root, a drop), or route his calls without the verdict to start him"
          + " afresh");
    }
    long written = Parcels.generationOf(userParcel);
    if (written < parcelGeneration) {
      throw new WorkerException(RefusalReason.NO_PARCEL, user, "the call brought the"
          + " verdict that '" + user + "' was frozen at generation " + parcelGeneration + ", but"
          + " the freezer at " + freezer.root() + " holds only a parcel of his generation "
          + written + ": residue of an older stay, never him; nothing was read into memory,"
          + " created or announced, and the parcel was left as it was");
    }
    Map<String, Map<?, ?>> connectionParcels = new LinkedHashMap<>(handedOnly);
    Optional<Map<String, Map<?, ?>>> inner = ParcelTree.innerConnectionParcels(userParcel);
    for (String connectionId : Parcels.connectionIds(userParcel)) {
      Optional<?> parcel = inner.isPresent() // a checkpoint's: inside it, never the files
          ? Optional.ofNullable(inner.get().get(connectionId))
          : freezer.readConnectionParcel(user, connectionId);
      if (parcel.isPresent()) {
        connectionParcels.put(connectionId, (Map<?, ?>) parcel.get());
      }
    }
    try { // before anything is dropped: a parcel this version cannot read stays as it is
      userParcel = Parcels.readable(userParcel, worker.application());
      connectionParcels.replaceAll((id, parcel) -> Parcels.readable(parcel, worker.application()));
    } catch (Parcels.Unreadable e) {
      throw unreadable(user, e);
    }
    freezer.dropUnreadableNote(user); // an earlier version's refusal, now read
    tenant.lock.lock();
    try {
      List<Object[]> births = new ArrayList<>();
      try {
        registry.userItems().update(user, Parcels.rebuildFields(userParcel));
        births.add(new Object[] {AnnouncementKind.NEW_USER, user});
        for (Map.Entry<String, Map<?, ?>> connection : connectionParcels.entrySet()) {
          if (!registry.connectionItems().contains(connection.getKey())) { // a held one wins
            rebuildConnection(user, connection.getKey(), connection.getValue(), births);
          }
        }
        registry.userItems().update(user, Map.of(UserState.FIELD, UserState.ACTIVE.code()));
      } catch (RuntimeException e) {
        registry.dropUser(user); // placeholder and what was rebuilt; nothing was announced
        registry.newUser(user, Map.of(UserState.FIELD, UserState.UNFREEZING.code()));
        throw e; // every parcel is where it was
      }
      for (Object[] birth : births) {
        announcer.publish((AnnouncementKind) birth[0], user, List.of((String) birth[1]),
            birth.length > 2 ? (String) birth[2] : null);
      }
      announcer.publish(AnnouncementKind.USER_ADOPTED, user, user);
      tenant.woken(handedOnly.isEmpty() ? new Tenant.WokenFrom(written,
          inner.isPresent() ? Set.of() : connectionParcels.keySet()) : null);
    } finally {
      tenant.lock.unlock();
    }
    announcer.deliver();
    if (handedOnly.isEmpty()) {
      setAside(user);
    }
    consume(user, handedOnly.keySet());
  }

  /**
   * Sets aside the user parcel a wake read ({@link Freezer#setAsideUserParcel}), semaphore held:
   * kept for his worker's death before his stay writes his own, where no later wake takes it for
   * him (a wake whose record the commander lost with this worker finds no parcel, never his older
   * state). A failure is logged and leaves it in place.
   */
  private void setAside(String user) {
    try {
      freezer.setAsideUserParcel(user);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the parcel '" + user + "' was woken from on worker " + name
          + " could not be set aside; it stays his user parcel until his stay writes his own", e);
    }
  }

  /** The connection parcels login tails handed over to {@code user}, by id; semaphore held. */
  private Map<String, Map<?, ?>> handedOverTo(String user) throws IOException {
    Map<String, Map<?, ?>> handed = new LinkedHashMap<>();
    freezer.connectionParcelsOf(user).forEach((id, parcel) -> {
      if (parcel instanceof Map<?, ?> map && Parcels.handedOver(map)) {
        handed.put(id, map);
      }
    });
    return handed;
  }

  /**
   * Consumes the connection parcels login tails handed over that a wake adopted, semaphore held:
   * adopted, they are his stay's, and must never be adopted again. What a wake read of his own
   * stays where it is until his stay writes his parcels over it ({@link Tenant.WokenFrom}). A
   * failure is logged and leaves residue, which no call adopts again while he holds them.
   */
  private void consume(String user, Set<String> connectionIds) {
    try {
      for (String connectionId : connectionIds) {
        freezer.dropConnectionParcel(user, connectionId);
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the connection parcels handed over to '" + user + "' that worker "
          + name + " adopted at his wake could not all be dropped; he holds them all the same", e);
    }
  }

  /**
   * The refusal of a user whose parcels this version cannot read, after the freezer's unreadable
   * note was written beside them (semaphore held); the parcels are untouched.
   */
  private WorkerException unreadable(String user, Parcels.Unreadable e) {
    int running = worker.application().stateVersion();
    String why = "written by state version " + e.version + ", which the running application"
        + " (state version " + running + ") cannot read: " + e.getMessage();
    try {
      freezer.writeUnreadableNote(user, Map.of("state_version", e.version, "running_state_version",
          running, "reason", e.getMessage()), name, "unreadable: " + why, group);
    } catch (IOException | RuntimeException noteFailure) {
      LOG.log(Level.WARNING, "the unreadable note of '" + user + "' could not be written; his"
          + " parcels are kept all the same", noteFailure);
    }
    LOG.log(Level.WARNING, "'" + user + "' cannot be woken on worker " + name + ": his parcels were "
        + why + "; they are kept in the freezer as they were");
    return new WorkerException(RefusalReason.UNREADABLE_PARCEL, user, "the saved state of '"
        + user + "' was " + why + "; it is kept in the freezer as it was (nothing was read,"
        + " changed or dropped): run a version of the application that reads state version "
        + e.version + ", or upgrade it in CryoApplication.upgrade");
  }

  /** Puts back what a failed wake had read, so that nothing is lost; best effort, logged. */
  private void rewrite(String user, Map<?, ?> userParcel, Map<String, Map<?, ?>> connections) {
    try {
      if (userParcel != null) {
        freezer.writeUserParcel(user, userParcel, name, "wake undone", group);
      }
      for (Map.Entry<String, Map<?, ?>> connection : connections.entrySet()) {
        freezer.writeConnectionParcel(user, connection.getKey(), connection.getValue(), name,
            "wake undone", group);
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.ERROR, "a failed wake of '" + user + "' could not put its parcels back; what"
          + " was read is lost from the freezer", e);
    }
  }

  /** Rebuilds one connection and its pages through the lifecycle; the caller holds the tenant lock. */
  private void rebuildConnection(String user, String connectionId, Map<?, ?> parcel,
      List<Object[]> births) {
    Map<?, ?> merged = null;
    if (!registry.userItems().contains(user)) {
      Map<String, Object> fields = new HashMap<>();
      Object carried = parcel.get(Parcels.CARRIED_USER_STORE);
      if (carried != null) {
        fields.put("store", Parcels.storeFrom(carried)); // the guest's store, unless a resident exists
      }
      registry.newUser(user, fields);
      births.add(new Object[] {AnnouncementKind.NEW_USER, user});
    } else if (parcel.get(Parcels.CARRIED_USER_STORE) instanceof Map<?, ?> carried) {
      merged = carried; // the identity exists: his store is kept, the guest's waits for a merge
    }
    registry.newConnection(connectionId, user, Parcels.rebuildFields(parcel));
    births.add(new Object[] {AnnouncementKind.NEW_CONNECTION, connectionId});
    for (Map<?, ?> page : Parcels.pages(parcel)) {
      String pageId = (String) page.get(Parcels.ID);
      registry.newPage(pageId, user, connectionId, Parcels.rebuildFields(page));
      births.add(new Object[] {AnnouncementKind.NEW_PAGE, pageId, connectionId});
    }
    if (merged != null) { // last: a refusal leaves nothing of it kept
      keepForMerge(user, merged);
    }
  }

  /**
   * Appends a guest's carried store to the login merges waiting in the identity's user store
   * ({@link GuestMerges}), when the application declared any; after the connection was rebuilt (a
   * refusal makes the caller undo it, the parcel put back). The identity's row lock is tried, never waited for, under the tenant lock.
   *
   * @throws LockOrder.RowBusy when a call's store action holds it; nothing changed
   */
  private void keepForMerge(String user, Map<?, ?> carried) {
    Map<String, Object> guestStore = new LinkedHashMap<>();
    carried.forEach((key, value) -> guestStore.put((String) key, value));
    if (!GuestMerges.kept(worker.application(), guestStore)) {
      return;
    }
    dev.cryo.register.UserRow identity = registry.userItems().get(user).orElseThrow();
    if (!identity.lock().tryLock()) {
      throw new LockOrder.RowBusy("the user row '" + user + "'");
    }
    try {
      GuestMerges.append(identity, guestStore);
    } finally {
      identity.lock().unlock();
    }
  }

  /**
   * Adopts a connection from its parcel in the user's folder, when there is one: one disk trip per
   * connection however many calls ask. The look for the file is unlocked; only a file that is there
   * makes the worker take the semaphore.
   */
  void adoptConnectionIfParcelled(Tenant tenant, String user, String connectionId) {
    if (!Files.exists(freezer.connectionParcel(user, connectionId), LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    CompletableFuture<Void> probe;
    boolean mine = false;
    tenant.lock.lock();
    try {
      CompletableFuture<Void> fresh = new CompletableFuture<>();
      probe = tenant.probe(connectionId, fresh);
      if (probe == null) {
        probe = fresh;
        mine = true;
      }
    } finally {
      tenant.lock.unlock();
    }
    if (mine) {
      CompletableFuture<Void> mineProbe = probe;
      trips.run(() -> freezer, user, "adopt", into -> {
        adoptConnection(tenant, user, connectionId);
        return null;
      }).whenComplete((ignored, failure) -> {
        tenant.lock.lock();
        try {
          tenant.probed(connectionId);
        } finally {
          tenant.lock.unlock();
        }
        if (failure != null) {
          mineProbe.completeExceptionally(Worker.unwrap(failure));
        } else {
          mineProbe.complete(null);
        }
      });
    }
    try {
      probe.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof WorkerException refusal
          && refusal.reason() == RefusalReason.UNREADABLE_PARCEL) {
        throw new WorkerException(refusal.reason(), user, refusal.getMessage(), refusal);
      }
      throw new WorkerException(RefusalReason.WAKE_FAILED, user, "adopting connection '"
          + connectionId + "' of '" + user + "' on worker " + name + " failed ("
          + e.getCause().getMessage() + "); its parcel was left as it was: retry the call",
          e.getCause());
    }
  }

  private void adoptConnection(Tenant tenant, String user, String connectionId) throws IOException {
    Optional<Object> read = freezer.readConnectionParcel(user, connectionId);
    if (read.isEmpty()) {
      return; // adopted meanwhile by somebody else, or never there
    }
    if (!Parcels.handedOver((Map<?, ?>) read.get())) {
      return; // residue of a stay of his, read only by his wake
    }
    Map<?, ?> parcel;
    try {
      parcel = Parcels.readable((Map<?, ?>) read.get(), worker.application());
    } catch (Parcels.Unreadable e) {
      throw unreadable(user, e);
    }
    freezer.dropConnectionParcel(user, connectionId);
    tenant.lock.lock();
    try {
      if (registry.connectionItems().contains(connectionId)) {
        return; // a held connection wins over its parcel
      }
      List<Object[]> births = new ArrayList<>();
      boolean userSeen = registry.userItems().contains(user);
      try {
        rebuildConnection(user, connectionId, parcel, births);
      } catch (RuntimeException e) {
        if (registry.connectionItems().contains(connectionId)) {
          registry.dropConnection(connectionId, !userSeen);
        }
        rewrite(user, null, Map.of(connectionId, parcel));
        throw e;
      }
      for (Object[] birth : births) {
        announcer.publish((AnnouncementKind) birth[0], user, List.of((String) birth[1]),
            birth.length > 2 ? (String) birth[2] : null);
      }
    } finally {
      tenant.lock.unlock();
    }
    announcer.deliver();
  }
}
