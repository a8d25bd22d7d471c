package dev.cryo.worker;

/**
 * The mark a transfer plan sets on a user it wants gone from a worker. It rides the photo, and is
 * consumed only by a departure that happened, a failure that was counted, or the user's absence.
 */
public enum TransferFlag {
  /** Leave by the freezer: the user is frozen and wakes wherever his next call lands. */
  TRANSFER,
  /** Leave for good: the user's rows are dropped and nothing is written. */
  EXPIRY
}
