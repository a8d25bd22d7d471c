package dev.cryo.wire.protocol;

import java.util.List;

/**
 * A worker's reply to {@code quit}: who went into the freezer, whose departure failed, whose calls
 * were cut. The worker exits after sending it.
 *
 * @param frozen the users frozen
 * @param failed the users whose departure failed (lost when the worker exits)
 * @param cut the users whose calls were cut past the grace
 */
public record QuitResult(List<String> frozen, List<String> failed, List<String> cut) {

  /** Copies the lists. */
  public QuitResult {
    frozen = frozen == null ? List.of() : List.copyOf(frozen);
    failed = failed == null ? List.of() : List.copyOf(failed);
    cut = cut == null ? List.of() : List.copyOf(cut);
  }
}
