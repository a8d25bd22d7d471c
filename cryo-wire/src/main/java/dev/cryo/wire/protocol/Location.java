package dev.cryo.wire.protocol;

/**
 * The commander's answer to {@link Locate}: where its maps say the identity lives.
 *
 * @param worker the worker holding him, or null
 * @param frozen whether he is in the freezer
 */
public record Location(String worker, boolean frozen) {

  /** Whether the identity is known at all. */
  public boolean known() {
    return worker != null || frozen;
  }
}
