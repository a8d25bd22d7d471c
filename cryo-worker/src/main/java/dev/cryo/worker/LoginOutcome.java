package dev.cryo.worker;

/** How a login ({@link Worker#login}) ended. */
public enum LoginOutcome {
  /** The connection was relabelled in place and stays on this worker. */
  RELABELLED,
  /**
   * The connection left by the login tail: its parcel waits under the new identity's folder,
   * carrying the guest's store, and this worker's memory no longer holds it.
   */
  HANDED_OVER
}
