package dev.cryo.app;

/** How {@link Call#login} went. */
public enum LoginResult {
  /**
   * The connection now belongs to the identity, here: from the next line of the handler on,
   * {@link Call#user()} is the identity and {@link Call#user(Class)} reaches its state — a guest's
   * user state when it was a guest's first login into an identity nobody holds, else the identity's
   * own.
   */
  HERE,
  /**
   * The identity lives on another worker or in the freezer: the connection is handed over to it
   * once this call ends, and its next request is served there, with the identity's own state. Until
   * this call ends, {@link Call#user()} and {@link Call#user(Class)} are still the previous owner's.
   * A handler typically answers with a redirect ({@link Response#seeOther}) to what the next request
   * should read.
   */
  ELSEWHERE
}
