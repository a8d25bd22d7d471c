package dev.cryo.app;

/**
 * What a hook ({@link CryoApplication#onWake}, {@link CryoApplication#onFreeze},
 * {@link CryoApplication#onPageClosed}) reaches: the user and his state. Valid during the hook only:
 * once the hook returned, every method, and those of the {@link State}s it gave, throws an
 * {@link IllegalStateException} naming the hook.
 */
public interface Stay {

  /** The user. */
  String user();

  /** The name of the worker this instance of the application runs in. */
  String worker();

  /**
   * The user's state of class {@code type}; see {@link Call#user(Class)}.
   *
   * @throws StateException {@link StateException.Reason#GONE} (on use) when the user left
   */
  <T> State<T> user(Class<T> type);
}
