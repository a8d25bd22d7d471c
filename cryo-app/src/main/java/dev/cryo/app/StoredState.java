package dev.cryo.app;

import java.util.Objects;

/**
 * One piece of state as an older version of the application stored it, handed to
 * {@link CryoApplication#upgrade}: whose it is, under which key, which
 * {@link CryoApplication#stateVersion() state version} wrote it, and its plain data.
 *
 * <pre>{@code
 * @Override public int stateVersion() { return 2; }            // Account.visits became a record
 *
 * @Override public Object upgrade(StoredState stored) {
 *   if (stored.key().equals("Account") && stored.version() == 1) {
 *     OldAccount old = stored.as(OldAccount.class);             // record OldAccount(long visits) {}
 *     return new Account(new Visits(old.visits(), null));
 *   }
 *   return stored.value();                                      // the rest reads as it is
 * }
 * }</pre>
 *
 * @param scope whose state it is: the user's, a connection's or a page's
 * @param key the state's storage name ({@link StateKey}, else the class's simple name)
 * @param version the state version that wrote it, at least 1 and older than the running one
 * @param value its plain data: for a state class, a {@code Map<String, Object>} of its properties
 *     (nested maps, lists, strings, numbers, booleans, {@code byte[]}); never null
 */
public record StoredState(Scope scope, String key, int version, Object value) {

  /** Checks that nothing is null. */
  public StoredState {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  /**
   * The stored value read into {@code type} as a state is read: unknown fields ignored, missing ones
   * defaulted. Handy to read the old shape with a record of the old version.
   *
   * @throws StateException {@link StateException.Reason#UNREADABLE} when it does not fit, naming
   *     the field
   */
  public <T> T as(Class<T> type) {
    return PlainData.readUnescaped(value, type);
  }
}
