package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual exclusion under contention across real JVMs, checked by an independent {@link
 * LockVerifier}: N child processes take turns R times on one lock, each reporting when it enters and
 * leaves its critical section; any overlap fails the test.
 *
 * <p>Sizes: {@code -Dcryo.stress.clients} (default 4) processes, 200 × {@code cryo.stress.scale}
 * rounds each.
 */
class MutualExclusionCrossProcessTest {

  private static final int CLIENTS = Math.max(2, Integer.getInteger("cryo.stress.clients", 4));
  private static final long ROUNDS = 200L * Stress.scale();
  private static final int MAX_HOLD_MICROS = 400;

  @TempDir Path temporary;
  private final List<ChildJvm> children = new ArrayList<>();

  @AfterEach
  void killChildren() throws InterruptedException {
    for (ChildJvm child : children) {
      child.close();
    }
  }

  @Test
  void processLockAdmitsOneProcessAtATime() throws Exception {
    Path directory = Files.createDirectory(temporary.resolve("locked"));
    long seed = Stress.seed("ProcessLock mutual exclusion");
    run("contend", seed, List.of("60000", directory.toString()));
    assertThat(directory.resolve(ProcessLock.FILE_NAME)).doesNotExist();
    assertThat(Stress.sideFiles(directory)).isEmpty();
  }

  /**
   * Every other round the holder abandons the lock as if it had died holding it (its record then
   * names a provably dead holder), and the waiting processes race to reclaim it: two reclaimers of
   * one dead holder must never both win, nor one remove the other's fresh lock.
   */
  @Test
  void racingReclaimersOfDeadHoldersAdmitOneProcessAtATime() throws Exception {
    Path directory = Files.createDirectory(temporary.resolve("locked"));
    long seed = Stress.seed("reclaim races");
    run("abandon", seed, List.of("60000", directory.toString()));
    // The last round may have abandoned the lock: a fresh acquirer reclaims it without waiting.
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO, "after the races")) {
      assertThat(Stress.sideFiles(directory)).isEmpty();
    }
    assertThat(directory).isEmptyDirectory();
  }

  @Test
  void folderSemaphoreAdmitsOneProcessAtATime() throws Exception {
    Path folder = temporary.resolve("users").resolve("u-1");
    long seed = Stress.seed("FolderSemaphore mutual exclusion");
    run("semaphore", seed, List.of(folder.toString()));
    // The last release removed the folder, which held nothing but the semaphore.
    assertThat(folder).doesNotExist();
    assertThat(FolderSemaphore.holder(folder)).isEmpty();
  }

  private void run(String mode, long seed, List<String> tail) throws Exception {
    long started = System.nanoTime();
    try (LockVerifier verifier = LockVerifier.open()) {
      for (int id = 0; id < CLIENTS; id++) {
        List<String> arguments = new ArrayList<>(List.of(mode, Integer.toString(verifier.port()),
            Integer.toString(id), Long.toString(seed + id), Long.toString(ROUNDS),
            Integer.toString(MAX_HOLD_MICROS)));
        arguments.addAll(tail);
        children.add(ChildJvm.start(mode + " child " + id, HolderMain.class, arguments));
      }
      verifier.awaitConnected(CLIENTS, Duration.ofSeconds(120));
      verifier.start();
      Stress.awaitDone(verifier, children, CLIENTS, Duration.ofSeconds(120L * Stress.scale()));
      for (ChildJvm child : children) {
        assertThat(child.awaitExit(Duration.ofSeconds(30))).as(child.tail()).isZero();
      }
      verifier.assertNoViolations();
      assertThat(verifier.enters()).isEqualTo(CLIENTS * ROUNDS);
      for (int id = 0; id < CLIENTS; id++) {
        assertThat(verifier.entersOf(id)).isEqualTo(ROUNDS);
      }
      System.out.printf("%s: %d processes x %d rounds, %d entries, no overlap, %.1f s%n", mode,
          CLIENTS, ROUNDS, verifier.enters(), (System.nanoTime() - started) / 1e9);
    }
  }
}
