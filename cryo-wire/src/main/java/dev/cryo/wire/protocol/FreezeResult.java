package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * A worker's reply to {@code freeze_user}, sent only after its {@code user_frozen} announcement
 * when the user was frozen.
 *
 * @param outcome {@code frozen}, {@code dropped} (he expired meanwhile: gone, nothing written),
 *     {@code not_here} or {@code failed} (the user stays alive where he was)
 * @param message what happened, for the log
 */
public record FreezeResult(String outcome, String message) {

  /** The user is in the freezer. */
  public static final String FROZEN = "frozen";
  /** The user expired meanwhile: his rows were dropped, nothing was written. */
  public static final String DROPPED = "dropped";
  /** The worker does not hold the user. */
  public static final String NOT_HERE = "not_here";
  /** The freeze failed; the user stays alive where he was. */
  public static final String FAILED = "failed";

  /** Checks the outcome. */
  public FreezeResult {
    Objects.requireNonNull(outcome, "outcome");
  }
}
