package dev.cryo.chaos.nemesis;

import dev.cryo.chaos.history.FaultKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A fault schedule: faults in order, each after a quiet time under load. Drawn from a seed, so a
 * run can be replayed; {@link #everyKind} gives each kind once, in a fixed order.
 *
 * @param steps the faults, in order
 */
public record Schedule(List<Step> steps) {

  /** One fault after {@code quiet} of plain load. */
  public record Step(Duration quiet, FaultKind kind) {}

  /** Every kind of {@code kinds} once, in that order, each after {@code quiet}. */
  public static Schedule everyKind(List<FaultKind> kinds, Duration quiet) {
    return new Schedule(kinds.stream().map(kind -> new Step(quiet, kind)).toList());
  }

  /**
   * Faults drawn from {@code seed} among {@code kinds}, each after 3–10 s of quiet, as many as
   * fit in {@code length} by a rough estimate of how long each one lasts.
   */
  public static Schedule draw(long seed, List<FaultKind> kinds, Duration length) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Step> steps = new ArrayList<>();
    long budget = length.toMillis();
    while (true) {
      Duration quiet = Duration.ofMillis(3_000 + random.nextLong(7_001));
      FaultKind kind = kinds.get(random.nextInt(kinds.size()));
      budget -= quiet.toMillis() + estimate(kind).toMillis();
      if (budget < 0) {
        break;
      }
      steps.add(new Step(quiet, kind));
    }
    return new Schedule(List.copyOf(steps));
  }

  /** About how long a fault of {@code kind} lasts, recovery included. */
  static Duration estimate(FaultKind kind) {
    return switch (kind) {
      case KILL_WORKER -> Duration.ofSeconds(6);
      case KILL_COMMANDER, DRAIN_RESTART -> Duration.ofSeconds(10);
      case DRAIN_DURING_RELOAD -> Duration.ofSeconds(14);
      case PAUSE_WORKER -> Duration.ofSeconds(16);
      case RELOAD -> Duration.ofSeconds(10);
      case MOVE_STORM, DISK_FULL -> Duration.ofSeconds(8);
    };
  }
}
