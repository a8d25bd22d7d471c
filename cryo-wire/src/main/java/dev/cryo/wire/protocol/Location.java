package dev.cryo.wire.protocol;

/**
 * The commander's answer to {@link Locate}: where its maps say the identity lives, at which
 * generation ({@link Grant}). An identity nobody holds is <em>claimed</em> for the asking worker by
 * the answer itself, at a new generation: a second worker asking for it meanwhile hears that the
 * first holds it, so two logins into one new identity never make two copies of it.
 *
 * @param worker the worker holding him (the asker, when {@code claimed}), or null
 * @param frozen whether he is in the freezer
 * @param generation the generation he is held at (or was frozen at); 0 when unknown
 * @param claimed whether nobody held him and the answer gave him to the asker at
 *     {@code generation}: the asker may create him, at that generation only
 */
public record Location(String worker, boolean frozen, long generation, boolean claimed) {

  /** Whether the identity is known at all. */
  public boolean known() {
    return worker != null || frozen;
  }
}
