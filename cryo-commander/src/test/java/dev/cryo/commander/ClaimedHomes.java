package dev.cryo.commander;

import dev.cryo.control.RunHome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test's directories claimed as run homes ({@link RunHome#claim}), each released after the test.
 * Register it with {@code @RegisterExtension}.
 */
final class ClaimedHomes implements AfterEachCallback {

  private final List<RunHome> homes = new ArrayList<>();

  /** {@code directory} claimed as a run's home, with no entries of the run's layout. */
  RunHome claim(Path directory) throws IOException {
    RunHome home = RunHome.claim(directory, List.of());
    homes.add(home);
    return home;
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    for (RunHome home : homes) {
      home.close();
    }
    homes.clear();
  }
}
