package dev.cryo.register;

import java.util.Map;
import java.util.Set;

/**
 * The entry of a user in {@code user_items}: the top of the ownership chain.
 *
 * <p>Its fields the core gives meaning to: {@value #CONNECTIONS} (the downward edge, the set of the
 * user's connection ids, written only by the registry), {@value #STORE} (its live store) and
 * {@value #LAST_REFRESH_TS}. Every other field is the caller's, kept verbatim.
 *
 * <p>A consumer pairs its own fields with the entry by subclassing this class and overriding
 * {@link RegisterRegistry#newUserRow(String)}. Thread-safety as for every {@link Row}.
 */
public class UserRow extends ChainRow {

  /** The downward edge: the ids of the user's connections. */
  public static final String CONNECTIONS = "connections";

  final KeySet connections = new KeySet(); // guarded by the registry's structure lock

  /**
   * Creates an unregistered entry; only the registry's row factory calls this.
   *
   * @param user the user's key
   */
  protected UserRow(String user) {
    super(user);
  }

  /** The user's name: the key of the entry. */
  public final String user() {
    return key();
  }

  /** The ids of the user's connections, as an immutable snapshot. */
  public final Set<String> connections() {
    return snapshot(connections);
  }

  /** Whether the user is a guest: its name carries {@link RegisterRegistry#GUEST_PREFIX}. */
  public final boolean isGuest() {
    return key().startsWith(RegisterRegistry.GUEST_PREFIX);
  }

  @Override
  final Object chainValue(String field) {
    return field.equals(CONNECTIONS) ? connections() : NOT_A_CHAIN_SET;
  }

  @Override
  final void addChainValues(Map<String, Object> out) {
    out.put(CONNECTIONS, connections());
  }

  @Override
  final boolean isChainField(String field) {
    return field.equals(CONNECTIONS);
  }

  @Override
  final int lockRank() {
    return RowLock.USER;
  }
}
