package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/** The browser harness itself: a real {@code cryo serve}, the demo in a real headless Chromium. */
class BrowserHarnessTest {

  @TempDir Path scratch;

  @Test
  void opensTheDemoClicksAndTakesAScreenshot() throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"));
        Browser browser = Browser.open(scratch)) {
      browser.get(run.base());
      browser.await("the page knows its user", d -> browser.text(By.id("user")).startsWith("guest_"));
      browser.click(By.id("click"));
      browser.awaitText(By.id("counter"), "1");
      browser.click(By.id("click"));
      browser.awaitText(By.id("counter"), "2");
      browser.awaitText(By.id("pageCounter"), "2");
      Path shot = browser.screenshot(scratch.resolve("demo.png"));
      byte[] png = Files.readAllBytes(shot);
      assertThat(png).hasSizeGreaterThan(1000);
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    }
  }
}
