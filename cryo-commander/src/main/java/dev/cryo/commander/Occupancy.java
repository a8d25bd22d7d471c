package dev.cryo.commander;

import java.time.Duration;
import java.util.Objects;

/**
 * The policy of the occupancy check ({@link OccupancyCheck}): how often it takes its one step, how
 * many photos in a row a worker's heap must read full before it is replaced, and how old a worker
 * must be before it may be closed when the group shrinks. Immutable.
 *
 * @param checkInterval how often a step is taken (default 30 s: six beats of 5 s)
 * @param minimumAge the youngest a worker may be and still be closed (default 60 s), counted from
 *     its presentation
 * @param fullPhotos how many consecutive photos must show its used heap above
 *     {@link OccupancyCheck#RESTART_SHARE} of its ceiling for a worker to be replaced (default 3:
 *     at a 5 s beat, 10 to 15 s of a full heap; a single peak before a collection never counts)
 */
public record Occupancy(Duration checkInterval, Duration minimumAge, int fullPhotos) {

  /** The defaults: a step every 30 s, closing no worker younger than 60 s, 3 full photos. */
  public static final Occupancy DEFAULTS = new Occupancy(Duration.ofSeconds(30),
      Duration.ofSeconds(60), 3);

  /** Checks the parts: a positive interval, an age not negative, at least one photo. */
  public Occupancy {
    Objects.requireNonNull(checkInterval, "checkInterval");
    Objects.requireNonNull(minimumAge, "minimumAge");
    if (checkInterval.isNegative() || checkInterval.isZero() || minimumAge.isNegative()
        || fullPhotos < 1) {
      throw new IllegalArgumentException("the occupancy check needs a positive interval, an age"
          + " not negative and at least one full photo; got " + checkInterval + ", " + minimumAge
          + ", " + fullPhotos);
    }
  }

  /** This policy with a step every {@code value}. */
  public Occupancy withCheckInterval(Duration value) {
    return new Occupancy(value, minimumAge, fullPhotos);
  }

  /** This policy closing no worker younger than {@code value}. */
  public Occupancy withMinimumAge(Duration value) {
    return new Occupancy(checkInterval, value, fullPhotos);
  }

  /** This policy replacing a worker after {@code value} full photos in a row. */
  public Occupancy withFullPhotos(int value) {
    return new Occupancy(checkInterval, minimumAge, value);
  }
}
