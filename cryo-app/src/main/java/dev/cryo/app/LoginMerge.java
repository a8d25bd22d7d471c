package dev.cryo.app;

/**
 * How a guest's state of one class joins the state of the identity he logs into, when that identity
 * already exists: declared once per state class with {@link Routes#mergeAtLogin}.
 *
 * <p>A guest logging into an identity nobody holds becomes it, his state and all: no merge runs.
 * A guest logging, from his last connection, into an identity that exists — awake here, on another
 * worker, or frozen — leaves his user state to it: for each state class with a merge, the merge is
 * handed the guest's value and the identity's, and what it returns becomes the identity's. The
 * guest's state of a class without a merge is dropped (the identity keeps its own).
 *
 * <p>Runs in the identity's turn, where the two states meet: right after {@link Call#login}
 * returned {@link LoginResult#HERE}, else before the first call served for the identity once the
 * connection reached it (after {@link CryoApplication#onWake}, before the filters). A merge that
 * throws fails that call (a {@code 500}) and leaves both states as they were: it runs again at the
 * identity's next call.
 *
 * @param <T> the state class
 */
@FunctionalInterface
public interface LoginMerge<T> {

  /**
   * The identity's new state.
   *
   * @param guest the guest's state (never null: a merge runs only for a guest who has one)
   * @param identity the identity's state, or null when it has none of this class
   * @return the identity's state from now on; null removes it
   * @throws Exception to fail the call, nothing merged
   */
  T merge(T guest, T identity) throws Exception;
}
