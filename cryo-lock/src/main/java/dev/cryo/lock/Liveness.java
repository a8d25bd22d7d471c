package dev.cryo.lock;

import java.util.Locale;

/** What can be proved about a lock holder. */
public enum Liveness {
  /** The holder runs, or nothing proves it does not: the lock is held. */
  ALIVE,
  /** The holder is provably gone: its lock may be reclaimed. */
  DEAD,
  /** The holder runs on another host, where nothing can be proved from here: the lock is held. */
  UNKNOWN;

  /** The liveness in lower case, as printed by the CLI and written in its JSON. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
