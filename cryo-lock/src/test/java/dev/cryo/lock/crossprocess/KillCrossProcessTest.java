package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.MalformedRecordException;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of holders at chosen points, across real JVMs, under an independent {@link
 * LockVerifier}.
 *
 * <p>Child processes contend without end on two {@link ProcessLock}s and one {@link
 * FolderSemaphore}. The test kills one at a time ({@code SIGKILL}), at a point that cycles through
 * before the link of a publication (its temporary written), during it (linked, its temporary not
 * yet removed), after it (holding, outside the critical section), a removal, the critical section
 * and anywhere. The three points of a publication are made, not hoped for: the child is told to
 * stop at its next one ({@link dev.cryo.lock.PublicationSeam}, or once its acquisition returned)
 * and says so; the test then looks at the disk itself and asserts that the child is where it was
 * told to stop before it kills it. The others are sampled: the test stops the child ({@code
 * SIGSTOP}), looks where it is (a temporary of its pid being published, an aside link of a
 * removal, inside the critical section by the verifier, named by a lockfile), and kills it when
 * that is the point it is after, or lets it run on and tries again. Where each kill landed is
 * printed. After each kill a fresh child takes the slot, and the test waits until every lock makes
 * progress again (the dead holder was reclaimed).
 *
 * <p>What must hold: kills landed before, during and after a publication; no overlap ever;
 * progress after every kill; at the end, with every child killed at a random moment, a fresh
 * acquirer gets every lock without waiting; and an acquirer that reclaims a dead holder leaves no
 * temporary or aside link of a dead process behind (so a semaphore folder is removed again by its
 * last release).
 *
 * <p>Sizes: {@code 10 × cryo.stress.scale} kills.
 */
class KillCrossProcessTest {

  private static final int LOCK_CONTENDERS = 3;
  private static final int SEMAPHORE_CONTENDERS = 2;
  private static final int KILLS = 10 * Stress.scale();
  private static final int MAX_SAMPLES = 100;
  private static final long PROGRESS = 10;
  private static final Duration RECOVERY = Duration.ofSeconds(60);
  private static final Duration START = Duration.ofSeconds(120);

  /** Where a child was when it was stopped. */
  enum Point {
    PUBLISHING("publishing: its temporary written, not linked"),
    LINKED("publishing: linked as the lockfile, its temporary not yet removed"),
    REMOVING("removing a lockfile (release or reclaim): its aside link made"),
    INSIDE("inside the critical section"),
    HOLDING("holding a lock outside the critical section"),
    ELSEWHERE("anywhere else: waiting, pausing, starting");

    final String words;

    Point(String words) {
      this.words = words;
    }
  }

  /**
   * What one kill seeks: a point the child is told to stop at ({@code pause}, a command of {@link
   * HolderMain}, after which it must be at {@code made}), or one sought by sampling ({@code pause}
   * null, {@code sought} the points that will do).
   */
  private record Target(String pause, Point made, Predicate<Point> sought) {
    static Target made(String pause, Point point) {
      return new Target(pause, point, candidate -> candidate == point);
    }

    static Target sampled(Predicate<Point> sought) {
      return new Target(null, null, sought);
    }
  }

  private static final List<Target> TARGETS = List.of(
      Target.made("pause before-link", Point.PUBLISHING),
      Target.made("pause after-link", Point.LINKED),
      Target.made("pause holding", Point.HOLDING),
      Target.sampled(point -> point == Point.REMOVING),
      Target.sampled(point -> point == Point.INSIDE),
      Target.sampled(point -> true));

  private enum Kind { LOCK, SEMAPHORE }

  /** One place for a contender; its child is replaced when killed. */
  private final class Slot {
    final Kind kind;
    ChildJvm child;
    int clientId;

    Slot(Kind kind) {
      this.kind = kind;
    }

    LockVerifier verifier() {
      return kind == Kind.LOCK ? locks : semaphores;
    }

    List<Path> directories() {
      return kind == Kind.LOCK ? List.of(lockA, lockB) : List.of(folder);
    }
  }

  @TempDir Path temporary;
  private final List<ChildJvm> children = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private Path lockA;
  private Path lockB;
  private Path folder;
  private LockVerifier locks;
  private LockVerifier semaphores;
  private int nextClientId;
  private int started;
  private long seed;

  @AfterEach
  void killChildren() throws Exception {
    for (ChildJvm child : children) {
      child.close();
    }
    if (locks != null) {
      locks.close();
    }
    if (semaphores != null) {
      semaphores.close();
    }
  }

  @Test
  void killedHoldersNeverBreakExclusionAndEveryLockIsRecovered() throws Exception {
    seed = Stress.seed("kill -9 of holders");
    SplittableRandom random = new SplittableRandom(seed);
    long begun = System.nanoTime();
    lockA = Files.createDirectory(temporary.resolve("lock-a"));
    lockB = Files.createDirectory(temporary.resolve("lock-b"));
    folder = temporary.resolve("users").resolve("u-1");
    locks = LockVerifier.open();
    semaphores = LockVerifier.open();
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < LOCK_CONTENDERS + SEMAPHORE_CONTENDERS; i++) {
      Slot slot = new Slot(i < LOCK_CONTENDERS ? Kind.LOCK : Kind.SEMAPHORE);
      startChild(slot);
      slots.add(slot);
    }
    locks.awaitConnected(LOCK_CONTENDERS, START);
    semaphores.awaitConnected(SEMAPHORE_CONTENDERS, START);
    locks.start();
    semaphores.start();

    Map<Point, Integer> landed = new EnumMap<>(Point.class);
    int sideFilesLeft = 0;
    for (int kill = 0; kill < KILLS; kill++) {
      awaitProgress(slots);
      Slot slot = slots.get(random.nextInt(slots.size()));
      long pid = slot.child.pid();
      Target target = TARGETS.get(kill % TARGETS.size());
      Point point = target.pause() == null ? killAt(slot, target.sought(), random)
          : killWhenPaused(slot, target);
      landed.merge(point, 1, Integer::sum);
      events.add(String.format("%.3f s: killed %s (client %d) at: %s", (System.nanoTime() - begun)
          / 1e9, slot.child, slot.clientId, point.words));
      sideFilesLeft += sideFilesOf(pid, slot.directories()).size();
      startChild(slot);
    }
    awaitProgress(slots);

    // The end: every child killed wherever it is.
    for (Slot slot : slots) {
      Thread.sleep(random.nextInt(5));
      slot.child.kill();
    }
    assertNoViolations();
    System.out.printf("%d kills, landed: %s; %d entries (%d inside when killed), %d side files"
            + " left by the dead, %.1f s%n", KILLS, describe(landed),
        locks.enters() + semaphores.enters(), locks.diedInside() + semaphores.diedInside(),
        sideFilesLeft, (System.nanoTime() - begun) / 1e9);
    assertThat(landed).as("kills landed before, during and after a publication")
        .containsKeys(Point.PUBLISHING, Point.LINKED, Point.HOLDING);

    // Every lock is recovered at once: a fresh acquirer waits for nobody.
    for (Path directory : List.of(lockA, lockB)) {
      boolean deadHolder = Files.exists(directory.resolve(ProcessLock.FILE_NAME));
      try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "recovery")) {
        assertThat(lock.record().pid()).isEqualTo(ProcessHandle.current().pid());
      }
      assertThat(directory.resolve(ProcessLock.FILE_NAME)).doesNotExist();
      if (deadHolder) {
        assertThat(deadSideFiles(directory)).as("left after reclaiming in " + directory).isEmpty();
      }
    }
    assertThat(FolderSemaphore.tryTake(folder, "recovery")).isTrue();
    FolderSemaphore.release(folder, "recovery");
    if (Stress.sideFiles(folder).isEmpty() || deadSideFiles(folder).isEmpty()) {
      // Nothing of a dead process kept the folder (only, rarely, a side file whose pid is reused).
      assertThat(deadSideFiles(folder)).isEmpty();
      assertThat(folder).as("the release removes the folder").doesNotExist();
    }

    // Whatever the random end left, a reclaiming acquirer cleans it: make one reclaim.
    for (Path directory : List.of(lockA, lockB)) {
      killWhileHolding(HolderMain.class, "hold", directory, "@HELD");
      try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "reclaimer")) {
        assertThat(deadSideFiles(directory)).as("left after reclaiming in " + directory).isEmpty();
      }
      assertThat(directory).isEmptyDirectory();
    }
    killWhileHolding(HolderMain.class, "take", folder, "@TAKEN");
    assertThat(FolderSemaphore.tryTake(folder, "reclaimer")).isTrue();
    assertThat(deadSideFiles(folder)).as("left after reclaiming in " + folder).isEmpty();
    FolderSemaphore.release(folder, "reclaimer");
    assertThat(folder).as("the last release removes the folder").doesNotExist();
  }

  /**
   * A process killed while removing a semaphore (after the unlink, before its aside link is gone)
   * leaves the old record under an aside name only. The next take meets no contention, so no claim
   * cleans it; the release must, or the folder would outlive the operation that needed it.
   */
  @Test
  void aDeadRemoversAsideLinkDoesNotKeepTheFolderAlive() throws Exception {
    folder = temporary.resolve("users").resolve("u-1");
    ChildJvm taker;
    try (ChildJvm child = ChildJvm.start("take then kill -9", HolderMain.class,
        List.of("take", folder.toString()))) {
      children.add(child);
      child.awaitLine("@TAKEN", START);
      child.kill();
      taker = child;
    }
    org.junit.jupiter.api.Assumptions.assumeFalse(
        Files.exists(Path.of("/proc", Long.toString(taker.pid()))), "pid reused at once");
    Path lockFile = folder.resolve(FolderSemaphore.FILE_NAME);
    Path aside = folder.resolve(".lock.cryo-aside." + taker.pid() + ".0123456789abcdef");
    Files.move(lockFile, aside); // the state its death at that point leaves

    assertThat(FolderSemaphore.tryTake(folder, "next")).isTrue();
    assertThat(aside).as("an uncontended take cleans nothing").exists();
    FolderSemaphore.release(folder, "next");
    assertThat(folder).as("the release cleaned the dead aside and removed the folder")
        .doesNotExist();
  }

  private void startChild(Slot slot) throws IOException {
    slot.clientId = nextClientId++;
    List<String> arguments = new ArrayList<>();
    if (slot.kind == Kind.LOCK) {
      arguments.addAll(List.of("contend", Integer.toString(locks.port()),
          Integer.toString(slot.clientId), Long.toString(seed + slot.clientId), "-1", "300",
          "60000"));
    } else {
      arguments.addAll(List.of("semaphore", Integer.toString(semaphores.port()),
          Integer.toString(slot.clientId), Long.toString(seed + slot.clientId), "-1", "300"));
    }
    for (Path directory : slot.directories()) {
      arguments.add(directory.toString());
    }
    slot.child = ChildJvm.start(slot.kind.name().toLowerCase() + " contender " + slot.clientId,
        HolderMain.class, arguments);
    children.add(slot.child);
    started++;
  }

  /** Waits until every child is connected and each kind of lock made progress. */
  private void awaitProgress(List<Slot> slots) throws Exception {
    long lockTarget = locks.enters() + PROGRESS;
    long semaphoreTarget = semaphores.enters() + PROGRESS;
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (locks.connected() + semaphores.connected() < started
        || locks.enters() < lockTarget || semaphores.enters() < semaphoreTarget) {
      assertNoViolations();
      for (Slot slot : slots) {
        if (!slot.child.process().isAlive()) {
          throw new AssertionError(slot.child + " ended by itself with status "
              + slot.child.process().exitValue() + "\n" + slot.child.tail());
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("no progress for " + RECOVERY + " (a dead holder's lock not"
            + " recovered?): locks " + locks.enters() + " entries, semaphores "
            + semaphores.enters() + "; connected " + (locks.connected() + semaphores.connected())
            + " of " + started);
      }
      Thread.sleep(5);
    }
    assertNoViolations();
  }

  /** Both verifiers' verdicts; a failure tells what the children involved said and the kills. */
  private void assertNoViolations() {
    for (LockVerifier verifier : List.of(locks, semaphores)) {
      try {
        verifier.assertNoViolations();
      } catch (AssertionError violation) {
        StringBuilder story = new StringBuilder(verifier == locks ? "process locks: "
            : "semaphores: ").append(violation.getMessage()).append("\nkills:\n  ")
            .append(String.join("\n  ", events));
        for (ChildJvm child : children) {
          if (violation.getMessage().contains("(pid " + child.pid() + ")")) {
            story.append('\n').append(child.tail());
          }
        }
        throw new AssertionError(story.toString(), violation);
      }
    }
  }

  /**
   * Tells the child to stop at the point {@code target} makes, waits until it says it is there,
   * checks on disk that it is, and kills it.
   */
  private Point killWhenPaused(Slot slot, Target target) throws Exception {
    slot.child.send(target.pause());
    String said = slot.child.awaitLine("@PAUSED", RECOVERY);
    Point point = where(slot, slot.child.pid());
    slot.child.kill();
    assertThat(point).as("%s, told to '%s', said it stopped at %s", slot.child, target.pause(),
        said).isEqualTo(target.made());
    return point;
  }

  /** Stops the child at random moments until it is at a point {@code target} wants, then kills it. */
  private Point killAt(Slot slot, Predicate<Point> target, SplittableRandom random)
      throws Exception {
    long pid = slot.child.pid();
    for (int sample = 1; ; sample++) {
      Thread.sleep(random.nextInt(4));
      Signals.stop(pid);
      Point point = where(slot, pid);
      if (target.test(point) || sample >= MAX_SAMPLES) {
        slot.child.kill();
        return point;
      }
      Signals.resume(pid);
    }
  }

  /** Where a stopped child is, from its side files, the verifier and the lockfiles. */
  private static Point where(Slot slot, long pid) throws IOException {
    for (Path side : sideFilesOf(pid, slot.directories())) {
      if (side.getFileName().toString().contains(".cryo-aside.")) {
        return Point.REMOVING;
      }
      try {
        Object links = Files.getAttribute(side, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        return links instanceof Integer count && count > 1 ? Point.LINKED : Point.PUBLISHING;
      } catch (NoSuchFileException e) {
        return Point.PUBLISHING;
      }
    }
    if (slot.verifier().isInside(slot.clientId)) {
      return Point.INSIDE;
    }
    for (Path directory : slot.directories()) {
      try {
        LockRecord record =
            LockRecord.parse(Files.readAllBytes(directory.resolve(ProcessLock.FILE_NAME)));
        if (record.pid() == pid) {
          return Point.HOLDING;
        }
      } catch (NoSuchFileException | MalformedRecordException e) {
        // not this one
      }
    }
    return Point.ELSEWHERE;
  }

  private void killWhileHolding(Class<?> main, String mode, Path directory, String ready)
      throws Exception {
    try (ChildJvm child = ChildJvm.start(mode + " then kill -9", main,
        List.of(mode, directory.toString()))) {
      children.add(child);
      child.awaitLine(ready, START);
      child.kill();
    }
  }

  private static List<Path> sideFilesOf(long pid, List<Path> directories) throws IOException {
    List<Path> found = new ArrayList<>();
    for (Path directory : directories) {
      for (Path side : Stress.sideFiles(directory)) {
        if (Stress.pidOfSideFile(side) == pid) {
          found.add(side);
        }
      }
    }
    return found;
  }

  /**
   * The side files of processes that are gone. One whose pid now names a live process (pids are
   * reused) cannot be told from a live writer's, by the code under test as by us: it is left out.
   */
  private static List<Path> deadSideFiles(Path directory) throws IOException {
    List<Path> dead = new ArrayList<>();
    for (Path side : Stress.sideFiles(directory)) {
      if (!Files.exists(Path.of("/proc", Long.toString(Stress.pidOfSideFile(side))))) {
        dead.add(side);
      }
    }
    return dead;
  }

  private static String describe(Map<Point, Integer> landed) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<Point, Integer> entry : landed.entrySet()) {
      parts.add(entry.getValue() + " " + entry.getKey().words);
    }
    return String.join("; ", parts);
  }
}
