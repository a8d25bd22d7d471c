package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.front.NewVisitorBudget;
import java.net.http.HttpClient;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 23: {@code cryo serve --new-visitors-per-address}. Its default and its shapes; and a real
 * serve that holds one address to its budget of new guests while a browser with a cookie is
 * served throughout.
 */
@Timeout(180)
class ServeNewVisitorsTest {

  @TempDir
  Path scratch;

  @Test
  void theOptionDefaultsTo20ASecondWithABurstOf100AndReadsOffAndRefusesNonsense() {
    ServeCommand defaults = new ServeCommand();
    new CommandLine(defaults).parseArgs();
    assertThat(defaults.newVisitorsPerAddress).isEqualTo(NewVisitorBudget.DEFAULT)
        .isEqualTo(new NewVisitorBudget(20, 100));
    ServeCommand off = new ServeCommand();
    new CommandLine(off).parseArgs("--new-visitors-per-address", "off");
    assertThat(off.newVisitorsPerAddress.off()).isTrue();
    assertThatThrownBy(() -> new CommandLine(new ServeCommand())
        .parseArgs("--new-visitors-per-address", "many"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--new-visitors-per-address").hasMessageContaining("RATE[/BURST]");
  }

  @Test
  void anAddressPastItsBudgetGets429AndNothingWhileACookieIsServed() throws Exception {
    // One new visitor every 10 s after a burst of 3: no refill reaches a token within the test.
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1",
        "--new-visitors-per-address", "0.1/3");
        HttpClient http = HttpClient.newHttpClient()) {
      DemoClient browser = new DemoClient(http, run.base());
      Answer first = browser.get("/api/state");
      assertThat(first.status()).as(first.text()).isEqualTo(200);
      for (int i = 0; i < 2; i++) {
        assertThat(new DemoClient(http, run.base()).get("/api/state").status()).isEqualTo(200);
      }
      DemoClient flooder = new DemoClient(http, run.base());
      Answer refused = flooder.get("/api/state");
      assertThat(refused.status()).as(refused.text()).isEqualTo(429);
      assertThat(refused.json().path("error").asText()).isEqualTo("too_many_new_visitors");
      assertThat(flooder.cookie()).as("no cookie given: nothing was made").isNull();

      Answer again = browser.get("/api/state");
      assertThat(again.status()).as("a known cookie is never counted").isEqualTo(200);
      assertThat(again.field("user")).isEqualTo(first.field("user"));
    }
  }
}
