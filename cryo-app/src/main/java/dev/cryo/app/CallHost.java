package dev.cryo.app;

/**
 * For hosts: what a {@link Dispatcher} needs of the runtime during one call, beyond state. The
 * contracts are those of the matching {@link Call} methods.
 */
public interface CallHost extends StateHost {

  /** Whether the connection's owner is its guest; see {@link Call#isGuest()}. */
  boolean isGuest();

  /** See {@link Call#hasPage}. */
  boolean hasPage(String pageId);

  /** See {@link Call#openPage}. */
  String openPage();

  /** See {@link Call#pages}: the ids of the connection's open pages, in any order. */
  java.util.List<String> pages();

  /**
   * Closes page {@code pageId} of the call's connection for good (see {@link Call#closePage}),
   * without running {@link CryoApplication#onPageClosed}: the dispatcher runs it.
   *
   * @return whether it was open on this connection; false: nothing changed
   */
  boolean closePage(String pageId);

  /** See {@link Call#pushToPage}; {@code json} is the message written as JSON. */
  Pushed pushToPage(String pageId, byte[] json);

  /** See {@link Call#pushToConnection}. */
  Pushed pushToConnection(byte[] json);

  /** See {@link Call#pushToUser}. */
  Pushed pushToUser(byte[] json);

  /** See {@link Call#login}; after {@link LoginResult#HERE}, {@link #user()} is the identity. */
  LoginResult login(String user);

  /**
   * See {@link Call#logout}. A host that cannot log out throws
   * {@link UnsupportedOperationException}, changing nothing.
   */
  default void logout() {
    throw new UnsupportedOperationException("this host cannot log a connection out; nothing"
        + " changed");
  }

  /**
   * See {@link Call#forget}. A host that cannot forget throws
   * {@link UnsupportedOperationException}, changing nothing.
   */
  default void forget() {
    throw new UnsupportedOperationException("this host cannot forget a user; nothing changed");
  }
}
