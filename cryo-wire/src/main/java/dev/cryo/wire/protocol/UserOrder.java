package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * An order about one user ({@code freeze_user}, {@code drop_user}).
 *
 * @param user the user
 * @param ofQuit for {@code freeze_user}: the freeze hurries one user of a quit the commander has
 *     already sent on this wire, so the worker lets it depart only once that quit has begun (it is
 *     then one of the quit's departures and counts in its report); false for any other order,
 *     never null
 */
public record UserOrder(String user, Boolean ofQuit) {

  /** Checks the user; an absent {@code ofQuit} reads as false (an order that is no quit's). */
  public UserOrder {
    Objects.requireNonNull(user, "user");
    ofQuit = Boolean.TRUE.equals(ofQuit);
  }

  /** An order that is no quit's. */
  public static UserOrder of(String user) {
    return new UserOrder(user, false);
  }
}
