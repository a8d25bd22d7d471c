package dev.cryo.app;

/** Why a user leaves an instance of the application by the freezer ({@link CryoApplication#onFreeze}). */
public enum FreezeReason {
  /** The commander ordered it: a move to another worker (a "move me", a rebalance). */
  ORDERED,
  /** A transfer plan: the worker is being relieved of some of its users. */
  TRANSFER,
  /** He was idle past the worker's limit; his next call wakes him, here or elsewhere. */
  IDLE,
  /** The worker is quitting (a drain, a restart, a reload); every user leaves. */
  QUIT
}
