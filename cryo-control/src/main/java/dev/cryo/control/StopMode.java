package dev.cryo.control;

import java.util.Locale;
import java.util.Optional;

/** How a server stops. */
public enum StopMode {
  /**
   * Admit nothing more, let every user be frozen and every worker finish at its next step boundary,
   * then exit.
   */
  DRAIN,
  /** Stop at once, as a Ctrl-C of the server: nothing more is frozen. */
  NOW;

  /** The spelling in the request and on the command line: {@code drain} or {@code now}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode spelt {@code code}, exactly; empty for anything else. */
  public static Optional<StopMode> ofCode(String code) {
    for (StopMode mode : values()) {
      if (mode.code().equals(code)) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }
}
