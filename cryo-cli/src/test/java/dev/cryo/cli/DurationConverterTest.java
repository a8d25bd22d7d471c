package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class DurationConverterTest {

  private final DurationConverter converter = new DurationConverter();

  @ParameterizedTest
  @CsvSource({
      "10s, PT10S",
      "500ms, PT0.5S",
      "2m, PT2M",
      "1h, PT1H",
      "1d, PT24H",
      "30, PT30S",
      "0, PT0S",
      "PT5S, PT5S",
      "pt1m30s, PT1M30S",
      "' 10S ', PT10S",
  })
  void readsEverySpelling(String text, String expected) {
    assertThat(converter.convert(text)).isEqualTo(Duration.parse(expected));
  }

  @Test
  void foreverIsLongerThanAnyWaitTheLockAllows() {
    assertThat(converter.convert("forever")).isGreaterThan(Duration.ofDays(365));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1x", "-5", "-5s", "-PT5S", "PT-5S", "5 s", "1.5s", "s", "P",
      "10sec", "99999999999999s"})
  void refusesWhatIsNotADuration(String text) {
    assertThatThrownBy(() -> converter.convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining("is not a duration");
  }
}
