package dev.cryo.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link LoginMerge}s an application declared ({@link Routes#mergeAtLogin}), and their run over
 * the guests' stores waiting in an identity's user store.
 *
 * <p>A host that hands a guest's user state to an identity that exists (instead of dropping it)
 * appends the guest's store, as plain data, to the list under {@link Dispatcher#MERGING_GUESTS} in
 * the identity's user store ({@link Dispatcher#withMergingGuest}); the dispatcher runs the merges
 * over that list in the identity's turn and removes it. No state class is ever stored under that
 * key (a state's storage name holds no {@code '@'}), and the freezer carries it with the user's
 * store, so a merge that has not run yet survives a freeze, a move and an upgrade (each waiting
 * store is upgraded as a user store).
 *
 * <p>Declared while the routes are, read-only after: thread-safe once sealed.
 */
final class LoginMerges {

  private final Map<Class<?>, LoginMerge<?>> merges = new LinkedHashMap<>();

  /** Declares {@code merge} for {@code type}. */
  <T> void declare(Class<T> type, LoginMerge<T> merge) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(merge, "merge");
    if (merges.containsKey(type)) {
      throw new IllegalArgumentException("state class " + type.getName() + " has a login merge"
          + " already; the second was not declared: declare one merge per state class");
    }
    merges.put(type, merge);
  }

  /** Whether any merge was declared: without one, a guest's state is dropped as before. */
  boolean any() {
    return !merges.isEmpty();
  }

  /**
   * Runs the merges over the guests' stores waiting in the user store of {@code host}'s user, in
   * the order they arrived, then removes them; all or nothing: every merge is computed and checked
   * before anything is written.
   *
   * @return whether a guest's store was waiting
   * @throws Exception a merge's failure, or a {@link StateException} for a result that cannot be
   *     frozen; nothing written, the guests' stores kept for the next call
   */
  boolean apply(Dispatcher dispatcher, StateHost host) throws Exception {
    Object waiting = host.read(Scope.USER, null, Dispatcher.MERGING_GUESTS);
    if (!(waiting instanceof List<?> guests)) {
      return false;
    }
    Map<String, Object> identity = new LinkedHashMap<>(); // what each key becomes, in order
    Map<String, Class<?>> types = new LinkedHashMap<>();
    for (Object guest : guests) {
      if (!(guest instanceof Map<?, ?> store)) {
        continue;
      }
      Map<String, Object> guestStore = new LinkedHashMap<>();
      store.forEach((key, value) -> guestStore.put((String) key, value));
      StateHost guestHost = new GuestStore(host, guestStore);
      for (Map.Entry<Class<?>, LoginMerge<?>> entry : merges.entrySet()) {
        String key = dispatcher.keyOf(entry.getKey());
        merge(entry.getKey(), entry.getValue(), key, guestHost, host, identity);
        types.put(key, entry.getKey());
      }
    }
    for (Map.Entry<String, Object> entry : identity.entrySet()) {
      if (entry.getValue() != null) {
        PlainData.write(entry.getValue(), types.get(entry.getKey())); // refused before any write
      }
    }
    for (Map.Entry<String, Object> entry : identity.entrySet()) {
      write(types.get(entry.getKey()), entry.getKey(), host, entry.getValue());
    }
    host.write(Scope.USER, null, Dispatcher.MERGING_GUESTS, null);
    return true;
  }

  @SuppressWarnings("unchecked")
  private static <T> void merge(Class<T> type, LoginMerge<?> declared, String key,
      StateHost guestHost, StateHost host, Map<String, Object> identity) throws Exception {
    State<T> guest = new TypedState<>(guestHost, Scope.USER, null, key, type);
    if (!guest.isPresent()) {
      return;
    }
    T current;
    if (identity.containsKey(key)) {
      current = (T) identity.get(key); // an earlier guest's merge, not written yet
    } else {
      State<T> own = new TypedState<>(host, Scope.USER, null, key, type);
      current = own.isPresent() ? own.get() : null;
    }
    identity.put(key, ((LoginMerge<T>) declared).merge(guest.get(), current));
  }

  @SuppressWarnings("unchecked")
  private static <T> void write(Class<T> type, String key, StateHost host, Object value) {
    State<T> own = new TypedState<>(host, Scope.USER, null, key, type);
    if (value == null) {
      own.clear();
    } else {
      own.set((T) value);
    }
  }

  /** A guest's store, read-only, served as the user store of a host. */
  private record GuestStore(StateHost host, Map<String, Object> store) implements StateHost {
    @Override
    public String user() {
      return host.user();
    }

    @Override
    public String worker() {
      return host.worker();
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return PlainData.thaw(store.get(key));
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      throw new IllegalStateException("a guest's waiting store is read-only");
    }
  }

  /** {@code waiting} (the list under the key, or null) with {@code guestStore} appended. */
  static List<Object> appended(Object waiting, Map<String, Object> guestStore) {
    List<Object> next = new ArrayList<>();
    if (waiting instanceof List<?> list) {
      next.addAll(list);
    }
    next.add(guestStore);
    return next;
  }
}
