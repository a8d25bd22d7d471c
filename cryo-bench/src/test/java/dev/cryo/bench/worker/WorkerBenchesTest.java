package dev.cryo.bench.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.freezer.Freezer;
import dev.cryo.worker.Worker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each worker benchmark, run once at a tiny size: no timing, only that it works. */
class WorkerBenchesTest {

  @TempDir
  Path dir;

  @Test
  void theRealisticTenantKeepsHisStores() throws Exception {
    try (Worker worker = HandOverBench.worker("w", new Freezer(dir.resolve("freezer")))) {
      assertThat(RealisticTenant.place(worker, "u")).hasSize(RealisticUser.PAGES);
      assertThat(RealisticTenant.readUserStore(worker, "u", false))
          .isEqualTo(RealisticTenant.expectedUserStore());
      assertThat(worker.registry().pageItems().size())
          .isEqualTo(RealisticUser.CONNECTION_IDS.size() * RealisticUser.PAGES);
    }
  }

  @Test
  void theHarnessesRunAndCheckTheUserCameThrough() throws Exception {
    HandOverBench.main(new String[] {"4", "2"});
    BurstBench.main(new String[] {"2", "5"});
  }

  @Test
  void theQuitBenchSkipsItsRoundsOneAtATimeWhenAskedAndPrintsTheQuitsProcessorTime()
      throws Exception {
    String both = quitBench(null);
    assertThat(both).contains("round 1, 1 at once: ", "round 1, 2 at once: ", "mean ratio");
    String alone = quitBench("false");
    assertThat(alone).contains("round 1, 2 at once: ").doesNotContain("1 at once", "mean ratio");
    assertThat(alone).containsPattern("CPU \\d+\\.\\d\\d s");
  }

  /** QuitBench's output for 6 users, 1 round, 2 at once, with the serial property as given. */
  private static String quitBench(String serial) throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    if (serial != null) {
      System.setProperty(QuitBench.SERIAL_PROPERTY, serial);
    }
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      QuitBench.main(new String[] {"6", "1", "2"});
    } finally {
      System.setOut(out);
      System.clearProperty(QuitBench.SERIAL_PROPERTY);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
