package dev.cryo.bench.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.freezer.Freezer;
import dev.cryo.worker.Worker;
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
      RealisticTenant.place(worker, "u");
      assertThat(worker.call(RealisticTenant.readUserStore("u", false)))
          .isEqualTo(RealisticUser.userStore());
      assertThat(worker.registry().pageItems().size())
          .isEqualTo(RealisticUser.CONNECTION_IDS.size() * RealisticUser.PAGES);
    }
  }

  @Test
  void theHarnessesRunAndCheckTheUserCameThrough() throws Exception {
    HandOverBench.main(new String[] {"4", "2"});
    BurstBench.main(new String[] {"2", "5"});
  }
}
