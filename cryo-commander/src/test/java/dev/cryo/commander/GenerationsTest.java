package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.control.RunHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The run's generations never go back: not within a run, not across a crash and a restart. */
class GenerationsTest {

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  @TempDir
  Path dir;

  @Test
  void aRestartStartsAboveEveryGenerationItsPredecessorCouldHaveHandedOut() throws IOException {
    RunHome home = homes.claim(dir);
    Generations first = Generations.open(home, "generations");
    long a = first.next();
    long b = first.next();
    assertThat(b).isGreaterThan(a);
    assertThat(Files.readString(dir.resolve("generations")).strip())
        .isEqualTo(Long.toString(a + Generations.LEASE - 1));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
        dir.resolve("generations")))).isEqualTo("rw-------");

    // The first commander dies without a word; the next one reads only the lease.
    Generations second = Generations.open(home, "generations");
    long c = second.next();
    assertThat(c).isGreaterThan(a + Generations.LEASE - 1);
    for (int i = 0; i < Generations.LEASE + 2; i++) {
      long d = second.next();
      assertThat(d).isGreaterThan(c);
      c = d;
    }
  }

  @Test
  void aLeaseThatDoesNotReadIsRefusedAndNothingIsWritten() throws IOException {
    Files.writeString(dir.resolve("generations"), "many\n");
    Files.setPosixFilePermissions(dir.resolve("generations"),
        PosixFilePermissions.fromString("rw-------"));
    RunHome home = homes.claim(dir);

    assertThatThrownBy(() -> Generations.open(home, "generations"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("does not hold a number ('many')")
        .hasMessageContaining("the run did not start");
    assertThat(Files.readString(dir.resolve("generations"))).isEqualTo("many\n");
  }
}
