package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class IdleLimitConverterTest {

  @Test
  void serveFreezesIdleUsersByDefaultAndReadsOffAndDurations() {
    ServeCommand defaults = new ServeCommand();
    new CommandLine(defaults).parseArgs();
    assertThat(defaults.idleFreeze).isEqualTo(Duration.ofMinutes(10));
    assertThat(defaults.idleGuestFreeze).isEqualTo(Duration.ofSeconds(30));

    ServeCommand set = new ServeCommand();
    new CommandLine(set).parseArgs("--idle-freeze", "off", "--idle-guest-freeze", "2m");
    assertThat(set.idleFreeze).isNull();
    assertThat(set.idleGuestFreeze).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void zeroAndNonsenseAreRefusedWithWhatToWrite() {
    IdleLimitConverter converter = new IdleLimitConverter();
    assertThat(converter.convert(" OFF ")).isNull();
    assertThatThrownBy(() -> converter.convert("0s"))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining("longer than zero").hasMessageContaining("off");
    assertThatThrownBy(() -> converter.convert("soon"))
        .isInstanceOf(CommandLine.TypeConversionException.class);
    assertThatThrownBy(() -> new CommandLine(new ServeCommand()).parseArgs("--idle-freeze", "0"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--idle-freeze");
  }
}
