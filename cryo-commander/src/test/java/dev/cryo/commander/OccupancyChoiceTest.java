package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.OccupancyCheck.Reading;
import dev.cryo.commander.OccupancyCheck.Step;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The occupancy check's choice of its one step ({@link OccupancyCheck#choose}), over readings made
 * by hand: a heap that stays full is replaced and a peak is not; a spare worker is closed only when
 * it is not the reception, old enough, and its users fit on the others; never below
 * {@code --workers}; the coldest goes first.
 */
class OccupancyChoiceTest {

  private static final long MIB = 1024L * 1024;
  private static final Occupancy POLICY = Occupancy.DEFAULTS;
  private static final Placement PLACEMENT = new Placement(4, 6, 64 * MIB, OptionalLong::empty);
  private static final Duration OLD = Duration.ofSeconds(61);

  private static Reading worker(String name, long order, int users, long heapUsedMib, Duration age,
      int fullPhotos, long recentCalls) {
    return new Reading(name, order, true, users, heapUsedMib * MIB, 64 * MIB, age, fullPhotos,
        recentCalls);
  }

  private static Step choose(int workers, Reading... readings) {
    return OccupancyCheck.choose(List.of(readings), PLACEMENT, workers, 4, POLICY);
  }

  @Test
  void aHeapFullForThreePhotosInARowIsRestartedAndAPeakIsNot() {
    Reading peak = worker("main_0002", 2, 1, 63, OLD, 2, 0);
    assertThat(choose(2, worker("main_0001", 1, 1, 10, OLD, 0, 5), peak))
        .isInstanceOf(Step.Stay.class);
    Reading full = worker("main_0002", 2, 1, 63, OLD, 3, 0);
    assertThat(choose(2, worker("main_0001", 1, 1, 10, OLD, 0, 5), full))
        .isEqualTo(new Step.Restart(full));
    // The reception too, and even at --workers: its replacement starts before it quits.
    Reading reception = worker("main_0001", 1, 3, 62, Duration.ofSeconds(1), 5, 9);
    assertThat(choose(1, reception)).isEqualTo(new Step.Restart(reception));
  }

  @Test
  void aRetiringWorkerIsNeitherRestartedNorClosed() {
    Reading retiring = new Reading("main_0002", 2, false, 0, 63 * MIB, 64 * MIB, OLD, 9, 0);
    assertThat(choose(1, worker("main_0001", 1, 0, 10, OLD, 0, 0), retiring))
        .isInstanceOf(Step.Stay.class);
  }

  @Test
  void theColdestSpareWorkerIsClosedNeverTheReceptionNorBelowWorkers() {
    Reading reception = worker("main_0001", 1, 0, 10, OLD, 0, 0);
    Reading busy = worker("main_0002", 2, 1, 10, OLD, 0, 40);
    Reading cold = worker("main_0003", 3, 2, 10, OLD, 0, 3);
    assertThat(choose(1, reception, busy, cold)).isEqualTo(new Step.Close(cold));
    assertThat(choose(3, reception, busy, cold)).isInstanceOf(Step.Stay.class);
    // Alone with the reception above --workers: the reception stays, whatever its coldness.
    assertThat(choose(1, reception)).isInstanceOf(Step.Stay.class);
    assertThat(choose(1, reception, busy)).isEqualTo(new Step.Close(busy));
  }

  @Test
  void tiesGoToTheFewestUsersThenTheYoungest() {
    Reading reception = worker("main_0001", 1, 0, 10, OLD, 0, 0);
    Reading older = worker("main_0002", 2, 1, 10, OLD, 0, 0);
    Reading younger = worker("main_0003", 3, 1, 10, OLD, 0, 0);
    Reading fuller = worker("main_0004", 4, 2, 10, OLD, 0, 0);
    assertThat(choose(1, reception, older, younger, fuller)).isEqualTo(new Step.Close(younger));
  }

  @Test
  void aWorkerYoungerThanTheAgeOrNotMeasuredTwiceIsNotClosed() {
    Reading reception = worker("main_0001", 1, 0, 10, OLD, 0, 0);
    Reading young = worker("main_0002", 2, 0, 10, Duration.ofSeconds(59), 0, 0);
    assertThat(choose(1, reception, young)).isInstanceOf(Step.Stay.class);
    Reading unmeasured = worker("main_0002", 2, 0, 10, OLD, 0, -1);
    assertThat(choose(1, reception, unmeasured)).isInstanceOf(Step.Stay.class);
  }

  @Test
  void aWorkerWhoseUsersDoNotFitIsNotClosed() {
    // Head-count: 3 users, 2 free places on the reception (4 per worker).
    Reading reception = worker("main_0001", 1, 2, 10, OLD, 0, 0);
    Reading three = worker("main_0002", 2, 3, 10, OLD, 0, 0);
    assertThat(choose(1, reception, three)).isInstanceOf(Step.Stay.class);
    Reading two = worker("main_0002", 2, 2, 10, OLD, 0, 0);
    assertThat(choose(1, reception, two)).isEqualTo(new Step.Close(two));
    // Memory: 45 MiB used does not fit under 80 % of 64 MiB beside 10 MiB used (41.2 MiB free).
    Reading heavy = worker("main_0002", 2, 1, 45, OLD, 0, 0);
    assertThat(choose(1, reception, heavy)).isInstanceOf(Step.Stay.class);
    // A survivor above the admission share takes nobody.
    Reading hot = worker("main_0001", 1, 0, 55, OLD, 0, 0);
    assertThat(choose(1, hot, two)).isInstanceOf(Step.Stay.class);
    // An empty worker always fits.
    Reading empty = worker("main_0002", 2, 0, 30, OLD, 0, 0);
    assertThat(choose(1, hot, empty)).isEqualTo(new Step.Close(empty));
  }
}
