package dev.cryo.worker;

import dev.cryo.app.Dispatcher;
import dev.cryo.register.Store;
import dev.cryo.register.UserRow;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a guest's user store meets the identity he logged into, on the worker: when the
 * application declared login merges ({@link dev.cryo.app.Routes#mergeAtLogin}) and the identity
 * exists, the guest's store is appended under {@link Dispatcher#MERGING_GUESTS} to the identity's
 * user store, instead of being dropped, and the dispatcher runs the merges in the identity's turn.
 * The two places it happens are the two where the stores meet: the relabel in place
 * ({@link Login}, the identity awake here) and the adoption of a handed-over connection carrying a
 * guest's store ({@link Waking}, the identity awake here or woken here from the freezer). A login
 * never reaches across workers: the guest's store travels with the connection's parcel.
 *
 * <p>Called with the identity's row lock held by the caller (a store action's lock: the store is
 * guarded by it).
 */
final class GuestMerges {

  private GuestMerges() {}

  /** Whether a guest's store is kept for {@code application}'s merges (else it is dropped). */
  static boolean kept(AppHost application, Map<String, Object> guestStore) {
    return application.mergesAtLogin() && guestStore != null && !guestStore.isEmpty();
  }

  /** Appends {@code guestStore} to the merges waiting in {@code identity}'s store; row lock held. */
  static void append(UserRow identity, Map<String, Object> guestStore) {
    Store store = identity.get("store", Store.class);
    Map<String, Object> copy = new LinkedHashMap<>(guestStore);
    store.set(Dispatcher.MERGING_GUESTS,
        Dispatcher.withMergingGuest(store.get(Dispatcher.MERGING_GUESTS), copy));
  }
}
