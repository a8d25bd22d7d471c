package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * A worker's question: where does this identity live?
 *
 * @param user the identity
 */
public record Locate(String user) {

  /** Checks the user. */
  public Locate {
    Objects.requireNonNull(user, "user");
  }
}
