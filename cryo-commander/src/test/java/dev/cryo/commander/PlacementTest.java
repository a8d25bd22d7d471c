package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.commander.Verdict.AwaitStart;
import dev.cryo.commander.Verdict.Grow;
import dev.cryo.commander.Verdict.Place;
import dev.cryo.commander.Verdict.Saturated;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlacementTest {

  private static final long MIB = 1024 * 1024;
  private final AtomicLong free = new AtomicLong(8192 * MIB);
  private final Placement placement = new Placement(3, 3, 512 * MIB,
      () -> OptionalLong.of(free.get()));

  private static WorkerView view(String name, long order, int users) {
    return new WorkerView(name, order, true, users, 100 * MIB, 512 * MIB);
  }

  @Test
  void unknownConnectionsAndGuestsGoToTheOldestRunningWorker() {
    List<WorkerView> workers = List.of(view("w2", 2, 0), new WorkerView("w0", 0, false, 0, 0, 0),
        view("w1", 1, 2));

    assertThat(placement.forRequest(null, Location.UNKNOWN, workers, 0)).isEqualTo(new Place("w1"));
    assertThat(placement.forRequest("guest_c1", new Frozen(null), workers, 0))
        .isEqualTo(new Place("w1"));
  }

  @Test
  void aNewUserSkipsAFullReceptionForTheOldestWorkerThatAdmitsHim() {
    List<WorkerView> workers = List.of(view("w3", 3, 0), view("w1", 1, 3), view("w2", 2, 1),
        new WorkerView("w0", 0, true, 0, 450 * MIB, 512 * MIB)); // w0's heap is past 80 %

    assertThat(placement.forRequest(null, Location.UNKNOWN, workers, 0))
        .isEqualTo(new Place("w2"));
    assertThat(placement.forRequest("guest_c1", new Frozen(null), workers, 0))
        .isEqualTo(new Place("w2"));
    assertThat(placement.forRequest("guest_c1", Location.UNKNOWN, workers, 0))
        .isEqualTo(new Place("w2"));
  }

  @Test
  void aNewUserIsNeverPlacedPastTheCap() {
    List<WorkerView> full = List.of(view("w1", 1, 3), view("w2", 2, 3));

    assertThat(placement.forRequest(null, Location.UNKNOWN, full, 0)).isEqualTo(new Grow());
    assertThat(placement.forRequest(null, Location.UNKNOWN, full, 1)).isEqualTo(new AwaitStart());
    assertThat(placement.forRequest(null, Location.UNKNOWN,
        List.of(view("w1", 1, 3), view("w2", 2, 3), view("w3", 3, 4)), 0))
        .isInstanceOfSatisfying(Saturated.class,
            s -> assertThat(s.reason()).contains("--max-users-per-worker")
                .contains("--max-workers 3"));
    assertThat(placement.forRequest("guest_c1", new Frozen(null),
        List.of(view("w1", 1, 3), view("w2", 2, 3), view("w3", 3, 3)), 0))
        .isInstanceOf(Saturated.class);
  }

  @Test
  void withNoRunningWorkerANewUserWaitsForOneStarting() {
    List<WorkerView> none = List.of(new WorkerView("w1", 1, false, 0, 0, 0));
    assertThat(placement.forRequest(null, Location.UNKNOWN, none, 0)).isEqualTo(new Grow());
    assertThat(placement.forRequest(null, Location.UNKNOWN, none, 2)).isEqualTo(new AwaitStart());
    assertThat(new Placement(3, 1, 512 * MIB, () -> OptionalLong.of(free.get()))
        .forRequest(null, Location.UNKNOWN, none, 0)).isInstanceOf(Saturated.class);
    assertThat(placement.reception(none)).isInstanceOf(Saturated.class);
  }

  @Test
  void aKnownUserGoesWhereHeLivesEvenOnAFullWorker() {
    List<WorkerView> workers = List.of(view("w1", 1, 0), view("w2", 2, 9));

    assertThat(placement.forRequest("anna", new OnWorker("w2"), workers, 0))
        .isEqualTo(new Place("w2"));
    assertThat(placement.forRequest("guest_c1", new OnWorker("w2"), workers, 0))
        .isEqualTo(new Place("w2"));
  }

  @Test
  void aFrozenUserBoundForARunningWorkerGoesThere() {
    List<WorkerView> workers = List.of(view("w1", 1, 0), view("w2", 2, 3));

    assertThat(placement.forRequest("anna", new Frozen("w2"), workers, 0))
        .isEqualTo(new Place("w2"));
    assertThat(placement.forRequest("anna", new Frozen("w9"), workers, 0))
        .isEqualTo(new Place("w1")); // the bound worker is gone: placed anew
  }

  @Test
  void aFrozenUserGoesToTheFullestWorkerThatAdmitsHim() {
    List<WorkerView> workers = List.of(view("w1", 1, 1), view("w2", 2, 2), view("w3", 3, 3),
        new WorkerView("w4", 4, true, 0, 450 * MIB, 512 * MIB));

    // w3 is full (3 users), w4 uses 88 % of its heap: w2 is the fullest that admits.
    assertThat(placement.forRequest("anna", new Frozen(null), workers, 0))
        .isEqualTo(new Place("w2"));
  }

  @Test
  void tiesGoToTheOldest() {
    List<WorkerView> workers = List.of(view("w2", 2, 1), view("w1", 1, 1));

    assertThat(placement.forRequest("anna", new Frozen(null), workers, 0))
        .isEqualTo(new Place("w1"));
  }

  @Test
  void theAdmissionLineIsEightyPercentOfTheCeiling() {
    long ceiling = 1000 * MIB;
    assertThat(placement.admits(new WorkerView("w", 1, true, 0, 800 * MIB, ceiling))).isTrue();
    assertThat(placement.admits(new WorkerView("w", 1, true, 0, 800 * MIB + 1, ceiling))).isFalse();
    assertThat(placement.admits(new WorkerView("w", 1, true, 2, 0, 0))).isTrue(); // no photo yet
    assertThat(placement.admits(new WorkerView("w", 1, true, 3, 0, 0))).isFalse();
    assertThat(placement.admits(new WorkerView("w", 1, false, 0, 0, 0))).isFalse();
  }

  @Test
  void whenNoneAdmitsANewWorkerStartsWhileTheCapAndMemoryAllow() {
    List<WorkerView> full = List.of(view("w1", 1, 3), view("w2", 2, 3));

    assertThat(placement.forRequest("anna", new Frozen(null), full, 0)).isEqualTo(new Grow());
    assertThat(placement.forRequest("anna", new Frozen(null), full, 1))
        .isEqualTo(new AwaitStart()); // three alive or starting: wait for the one starting

    List<WorkerView> three = List.of(view("w1", 1, 3), view("w2", 2, 3), view("w3", 3, 3));
    assertThat(placement.forRequest("anna", new Frozen(null), three, 0))
        .isInstanceOfSatisfying(Saturated.class,
            s -> assertThat(s.reason()).contains("--max-workers 3"));

    free.set(511 * MIB);
    assertThat(placement.forRequest("anna", new Frozen(null), full, 0))
        .isInstanceOfSatisfying(Saturated.class,
            s -> assertThat(s.reason()).contains("511 MiB free"));
  }

  @Test
  void unknownFreeMemoryDoesNotStopGrowth() {
    Placement blind = new Placement(1, 3, 512 * MIB, OptionalLong::empty);
    assertThat(blind.forRequest("anna", new Frozen(null), List.of(view("w1", 1, 1)), 0))
        .isEqualTo(new Grow());
  }

  @Test
  void aMoveGoesToAnotherWorkerOrIsRefused() {
    List<WorkerView> workers = List.of(view("w1", 1, 0), view("w2", 2, 1));

    assertThat(placement.elsewhere("w2", workers, 0)).isEqualTo(new Place("w1"));
    assertThat(placement.elsewhere("w1", workers, 0)).isEqualTo(new Place("w2"));

    Placement single = new Placement(3, 1, 512 * MIB, () -> OptionalLong.of(free.get()));
    assertThat(single.elsewhere("w1", List.of(view("w1", 1, 0)), 0))
        .isInstanceOfSatisfying(Saturated.class,
            s -> assertThat(s.reason()).startsWith("no other worker admits him"));
  }

  @Test
  void memAvailableIsReadInBytes(@TempDir Path dir) throws Exception {
    Path meminfo = dir.resolve("meminfo");
    Files.writeString(meminfo, "MemTotal:       24000000 kB\nMemFree:  100 kB\n"
        + "MemAvailable:   20000000 kB\nBuffers: 1 kB\n");

    assertThat(MachineMemory.available(meminfo)).hasValue(20000000L * 1024);
    assertThat(MachineMemory.parse("MemTotal: 1 kB\n")).isEmpty();
    assertThat(MachineMemory.available(dir.resolve("absent"))).isEmpty();
    assertThat(MachineMemory.available()).isPresent(); // this machine is Linux
  }
}
