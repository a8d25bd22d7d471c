package dev.cryo.register;

import java.util.Map;
import java.util.Set;

/**
 * The row of a connection (a browser, a device) in {@code connection_items}: the middle of the
 * ownership chain, keyed by the connection id.
 *
 * <p>Its fields the core gives meaning to: {@value #USER} (the upward edge, the owning user's key),
 * {@value #PAGES} (the downward edge, the ids of its pages) — both written only by the registry —
 * {@value #STORE} (its live store, server-side only: nothing of it is ever sent to a browser) and
 * {@value #LAST_REFRESH_TS}. Every other field is the caller's, kept verbatim.
 *
 * <p>A connection is born a guest ({@code guest_<connection id>}) unless a user is given; the login
 * relabels it ({@link RegisterRegistry#changeConnectionUser}) and never re-keys it. A consumer pairs
 * its own fields with the row by subclassing this class and overriding
 * {@link RegisterRegistry#newConnectionRow(String)}. Thread-safety as for every {@link Row}.
 */
public class ConnectionRow extends ChainRow {

  /** The upward edge: the key of the user owning the connection. */
  public static final String USER = "user";

  /** The downward edge: the ids of the connection's pages. */
  public static final String PAGES = "pages";

  final KeySet pages = new KeySet(); // guarded by the registry's structure lock
  private volatile String user; // a copy of the field, rewritten with it

  /**
   * Creates an unregistered row; only the registry's row factory calls this.
   *
   * @param connectionId the connection's id, the row's key
   */
  protected ConnectionRow(String connectionId) {
    super(connectionId);
  }

  /** The connection id: the key of the row. */
  public final String connectionId() {
    return key();
  }

  /** The key of the user owning this connection. */
  public final String user() {
    return user;
  }

  /** The ids of the connection's pages, as an immutable snapshot. */
  public final Set<String> pages() {
    return snapshot(pages);
  }

  /** Whether the connection is still anonymous: its user carries the guest prefix. */
  public final boolean isGuest() {
    String user = user();
    return user != null && user.startsWith(RegisterRegistry.GUEST_PREFIX);
  }

  @Override
  final void check(String field, Object value) {
    if (field.equals(USER)) {
      requireType(field, value, String.class, false);
    } else {
      super.check(field, value);
    }
  }

  @Override
  final Object chainValue(String field) {
    return field.equals(PAGES) ? pages() : NOT_A_CHAIN_SET;
  }

  @Override
  final void addChainValues(Map<String, Object> out) {
    out.put(PAGES, pages());
  }

  @Override
  final boolean isChainField(String field) {
    return field.equals(USER) || field.equals(PAGES);
  }

  @Override
  final void cache() {
    user = (String) find(USER);
  }

  @Override
  final int lockRank() {
    return RowLock.CONNECTION;
  }
}
