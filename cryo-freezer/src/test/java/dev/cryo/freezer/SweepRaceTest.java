package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.LockRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes: the sweep ({@link Freezer#cleanupFrozen(Set, Set)}, the commander's) and a
 * take of one of its orphan folders by another process (a worker freezing a user reborn under a
 * key whose old folder was left behind), racing. The take starts once the sweep is under way (its
 * first folder gone) and lands while the sweep still works through the folders before it: the
 * folder taken is never dropped under its holder, whose lock and parcel stay.
 */
@Timeout(180)
class SweepRaceTest {

  static final int ORPHANS = 400;
  static final String LATE = "zz-late"; // its key sorts after every orphan's: the sweep's last

  @TempDir Path temp;

  /**
   * The other process: says ready; waits until the folder named {@code args[1]} is gone (the sweep
   * began); takes the semaphore of {@code args[2]} (retrying while somebody has it, as a worker
   * does), writes his parcel, says taken; holds until its stdin closes.
   */
  public static void main(String[] args) throws Exception {
    Freezer freezer = new Freezer(Path.of(args[0]));
    Path first = Path.of(args[0]).resolve(args[1]);
    System.out.println("ready");
    System.out.flush();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (Files.exists(first, LinkOption.NOFOLLOW_LINKS) && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    while (!freezer.tryTakeSemaphore(args[2], "worker") && System.nanoTime() < deadline) {
      Thread.sleep(1); // a worker's own retry
    }
    freezer.writeUserParcel(args[2], Map.of("by", "worker"), "worker", "freeze", "g");
    System.out.println("taken");
    System.out.flush();
    while (System.in.read() >= 0) {
      // Hold until the parent closes our stdin.
    }
  }

  @Test
  void aFolderTakenWhileTheSweepRunsKeepsItsLockAndParcel() throws Exception {
    Path root = temp.resolve("freezer");
    Freezer freezer = new Freezer(root);
    for (int i = 0; i < ORPHANS; i++) {
      leftBehind(freezer, String.format("o-%03d", i));
    }
    leftBehind(freezer, LATE); // an old life's folder: an orphan when the sweep lists
    Process child = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SweepRaceTest.class.getName(),
        root.toString(), Freezer.key("o-000"), LATE)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8));
      assertThat(output.readLine()).isEqualTo("ready");

      List<String> swept = freezer.cleanupFrozen(Set.of(), freezer.folderKeys());

      assertThat(output.readLine()).isEqualTo("taken");
      assertThat(swept).contains(Freezer.key("o-000"), Freezer.key("o-399"));
      LockRecord holder = freezer.semaphoreHolder(LATE).orElse(null);
      assertThat(holder).as("the taker's lock after the sweep").isNotNull();
      assertThat(holder.pid()).isEqualTo(child.pid());
      assertThat(freezer.readUserParcel(LATE)).contains(Map.of("by", "worker"));
    } finally {
      child.getOutputStream().close();
      if (!child.waitFor(30, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
    }
  }

  /** A folder with a parcel and no lock, as a freeze nobody answers for any more leaves it. */
  private static void leftBehind(Freezer freezer, String user) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "old")).isTrue();
    freezer.writeUserParcel(user, Map.of("by", "old"), "old", "freeze", "g");
    freezer.releaseSemaphore(user, "old");
  }
}
