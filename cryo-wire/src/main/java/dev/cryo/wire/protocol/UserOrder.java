package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * An order about one user ({@code freeze_user}, {@code drop_user}).
 *
 * @param user the user
 */
public record UserOrder(String user) {

  /** Checks the user. */
  public UserOrder {
    Objects.requireNonNull(user, "user");
  }
}
