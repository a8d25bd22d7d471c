package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cryo stop} on a running {@code cryo serve}: the serve stops (at once, until drains exist). */
class ServeStopTest {

  @TempDir Path scratch;

  @Test
  void cryoStopEndsARunningServe() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1");
    try {
      ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--home",
          run.home().toString());
      try {
        assertThat(stop.exitCode()).as(stop.err()).isEqualTo(0);
      } finally {
        stop.close();
      }
      assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
      assertThat(run.err()).contains("stop (drain) was requested");
    } finally {
      run.close();
    }
  }
}
