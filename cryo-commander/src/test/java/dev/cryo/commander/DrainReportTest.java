package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The drain's last line counts its users in the singular when there is one. */
class DrainReportTest {

  private static DrainReport report(int carried, Path reboot) {
    return new DrainReport(carried, List.of(), List.of(), reboot, reboot == null ? "disk full"
        : null, Duration.ofMillis(1500));
  }

  @Test
  void oneUserIsCarriedInTheSingular() {
    assertThat(report(1, Path.of("/run/reboot")).summary())
        .isEqualTo("cryo: drained: 1 user carried into /run/reboot in 1.5 s");
    assertThat(report(1, null).summary()).contains("; 1 user is frozen in the working freezer")
        .doesNotContain("users");
  }

  @Test
  void otherCountsAreInThePlural() {
    assertThat(report(0, Path.of("/run/reboot")).summary()).contains("drained: 0 users carried");
    assertThat(report(2, Path.of("/run/reboot")).summary()).contains("drained: 2 users carried");
    assertThat(report(2, null).summary()).contains("; 2 users are frozen");
  }
}
