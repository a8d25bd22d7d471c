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
 * @param generation the generation of the stay the order is for ({@link Grant}): the worker acts
 *     only on the user it holds at that generation, so an order decided on a stale reading of the
 *     maps touches nothing; null for any stay (a worker alone's orders, a quit's)
 */
public record UserOrder(String user, Boolean ofQuit, Long generation) {

  /** Checks the user; an absent {@code ofQuit} reads as false (an order that is no quit's). */
  public UserOrder {
    Objects.requireNonNull(user, "user");
    ofQuit = Boolean.TRUE.equals(ofQuit);
  }

  /** An order that is no quit's, for any stay of the user. */
  public static UserOrder of(String user) {
    return new UserOrder(user, false, null);
  }

  /** An order that is no quit's, for the user's stay at {@code generation}. */
  public static UserOrder of(String user, long generation) {
    return new UserOrder(user, false, generation);
  }
}
