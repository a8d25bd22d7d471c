package dev.cryo.worker;

/** How a departure ordered by {@link Worker#freezeUser} or a transfer plan ended. */
public enum FreezeOutcome {
  /** The user is in the freezer, his rows are gone, {@code user_frozen} was announced. */
  FROZEN,
  /** The user expired: his rows were dropped and nothing was written. */
  DROPPED,
  /** The user is not hosted here (absent, or known only as a pending call): nothing was done. */
  NOT_HOSTED
}
