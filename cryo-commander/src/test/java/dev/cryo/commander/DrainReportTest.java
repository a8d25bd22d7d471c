package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The drain's last line counts its users in the singular when there is one. */
class DrainReportTest {

  private static DrainReport report(int carried, Path reboot) {
    List<String> users = new java.util.ArrayList<>();
    for (int i = 0; i < carried; i++) {
      users.add("u" + i);
    }
    return new DrainReport(users, Map.of(), List.of(), reboot, reboot == null ? "disk full"
        : null, Duration.ofMillis(1500));
  }

  @Test
  void everyUserNotCarriedIsNamedWithWhy() {
    DrainReport report = new DrainReport(List.of("anna"), Map.of("bob", "awake on main_0001"),
        List.of(), Path.of("/run/reboot"), null, Duration.ofMillis(1500));
    assertThat(report.summary()).isEqualTo("cryo: drained: 1 user carried into /run/reboot,"
        + " 1 not carried {bob=awake on main_0001} in 1.5 s");
    assertThat(report.lost()).containsExactly("bob");
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

  @Test
  void aRefusedDrainNamesWhoStaysWhyAndWhatToDoAndClaimsNobodyCarriedOrLost() {
    DrainReport report = new DrainReport(List.of(), Map.of(), List.of(), null, "the freezer"
        + " refused 1 user (anna)", Duration.ofMillis(100), Map.of("anna",
        "worker main_0001 could not freeze him (No space left on device)"));
    assertThat(report.refused()).isTrue();
    assertThat(report.committed()).isFalse();
    assertThat(report.carried()).isZero();
    assertThat(report.lost()).isEmpty();
    assertThat(report.summary()).startsWith("cryo: the drain was refused: 1 user could not be"
        + " written and stays awake and served on his worker {anna=worker main_0001 could not"
        + " freeze him (No space left on device)}; nothing was committed or deleted")
        .contains(DrainReport.WHAT_TO_DO);
    assertThat(report(1, null).refused()).isFalse();
  }
}
