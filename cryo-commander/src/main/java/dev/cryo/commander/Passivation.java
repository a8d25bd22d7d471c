package dev.cryo.commander;

import java.time.Duration;

/**
 * When the run's workers freeze their idle users by themselves (their idle valve), sent to each
 * worker in its spawn payload. A user is idle when neither of his real clocks ({@code last_user_ts},
 * {@code last_rpc_ts}) moved for the limit; a beat is no sign of life. Immutable.
 *
 * @param idleFreeze how long anybody may stay idle before he is frozen ({@code --idle-freeze},
 *     default 10 minutes); null when off
 * @param idleGuestFreeze how long a guest who holds nothing may stay idle ({@code
 *     --idle-guest-freeze}, default 30 s); null when off. "Holds nothing": his user store and the
 *     stores of every connection and page of his are empty — he never wrote anything, or only ever
 *     read. His parcels are marked so
 *     ({@link dev.cryo.freezer.ParcelHeader#EMPTY_GUEST_CAUSE})
 */
public record Passivation(Duration idleFreeze, Duration idleGuestFreeze) {

  /** The valve off: nobody is frozen for being idle (the builder's default). */
  public static final Passivation OFF = new Passivation(null, null);

  /** What {@code cryo serve} runs with by default: 10 minutes, 30 s for guests holding nothing. */
  public static final Passivation DEFAULTS = new Passivation(Duration.ofMinutes(10),
      Duration.ofSeconds(30));

  /** Checks that each limit in force is positive. */
  public Passivation {
    for (Duration limit : new Duration[] {idleFreeze, idleGuestFreeze}) {
      if (limit != null && (limit.isNegative() || limit.isZero())) {
        throw new IllegalArgumentException("an idle limit is longer than zero (or off), got "
            + limit);
      }
    }
  }

  /** The idle limit in milliseconds for the spawn payload, or null when off. */
  Long idleFreezeMillis() {
    return idleFreeze == null ? null : idleFreeze.toMillis();
  }

  /** The empty guest's idle limit in milliseconds for the spawn payload, or null when off. */
  Long idleGuestFreezeMillis() {
    return idleGuestFreeze == null ? null : idleGuestFreeze.toMillis();
  }
}
