package dev.cryo.commander;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the frozen are kept and how often the freezer is tidied: the policy of {@link Expiry}
 * and {@link Sweep}. Immutable.
 *
 * @param frozenUserTtl how long a frozen user is kept after his parcel was written
 *     ({@code --frozen-user-ttl}, default 720 h)
 * @param frozenGuestTtl the same for a guest ({@code --frozen-guest-ttl}, default 24 h)
 * @param expiryInterval how often the frozen are checked for expiry (default 1 min)
 * @param sweepInterval how often orphan folders are swept (default 1 h)
 * @param frozenEmptyGuestTtl the same for a guest his worker's idle valve froze while he held
 *     nothing (his parcel's cause is {@link dev.cryo.freezer.ParcelHeader#EMPTY_GUEST_CAUSE};
 *     {@code --frozen-empty-guest-ttl}, default 10 min); the shorter of it and
 *     {@code frozenGuestTtl} applies
 */
public record Housekeeping(Duration frozenUserTtl, Duration frozenGuestTtl,
    Duration expiryInterval, Duration sweepInterval, Duration frozenEmptyGuestTtl) {

  /** The defaults: 720 h, 24 h, every minute, every hour, 10 minutes. */
  public static final Housekeeping DEFAULTS = new Housekeeping(Duration.ofHours(720),
      Duration.ofHours(24), Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofMinutes(10));

  /** Checks that every duration is positive. */
  public Housekeeping {
    for (Duration duration : new Duration[] {frozenUserTtl, frozenGuestTtl, expiryInterval,
        sweepInterval, frozenEmptyGuestTtl}) {
      Objects.requireNonNull(duration, "a housekeeping duration");
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("every housekeeping duration must be positive, got "
            + duration);
      }
    }
  }

  /** This policy with a frozen user's time to live of {@code value}. */
  public Housekeeping withFrozenUserTtl(Duration value) {
    return new Housekeeping(value, frozenGuestTtl, expiryInterval, sweepInterval,
        frozenEmptyGuestTtl);
  }

  /** This policy with a frozen guest's time to live of {@code value}. */
  public Housekeeping withFrozenGuestTtl(Duration value) {
    return new Housekeeping(frozenUserTtl, value, expiryInterval, sweepInterval,
        frozenEmptyGuestTtl);
  }

  /** This policy checking expiry every {@code expiry} and sweeping every {@code sweep}. */
  public Housekeeping withIntervals(Duration expiry, Duration sweep) {
    return new Housekeeping(frozenUserTtl, frozenGuestTtl, expiry, sweep, frozenEmptyGuestTtl);
  }

  /** This policy with an empty guest's time to live of {@code value}. */
  public Housekeeping withFrozenEmptyGuestTtl(Duration value) {
    return new Housekeeping(frozenUserTtl, frozenGuestTtl, expiryInterval, sweepInterval, value);
  }
}
