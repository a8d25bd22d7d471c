package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The demo in a real headless Chromium against a real {@code cryo serve}: pushes between tabs over
 * the page socket, a move that keeps every state and never reconnects the socket, and a login that
 * carries the guest's counter.
 */
class BrowserDemoTest {

  @TempDir Path scratch;

  @Test
  void tabsSeeEachOthersClicksAndNotesAndAMoveNeverClosesTheSocket() throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2");
        Browser browser = Browser.open(scratch)) {
      browser.get(run.base());
      String first = browser.tab();
      awaitSocket(browser);
      String page = browser.text(By.id("page"));
      browser.click(By.id("click"));
      browser.awaitText(By.id("counter"), "1");

      // a second tab of the same browser: its own page, the same user; a click in the first is pushed
      String second = browser.newTab(run.base());
      awaitSocket(browser);
      browser.awaitText(By.id("counter"), "1");
      assertThat(browser.text(By.id("page"))).isNotEqualTo(page);
      browser.switchTo(first);
      browser.click(By.id("click"));
      browser.awaitText(By.id("counter"), "2");
      browser.switchTo(second);
      browser.awaitText(By.id("counter"), "2"); // pushed: this tab sent nothing

      // a third tab on the first tab's page: a note added in the first appears there
      String third = browser.newTab(URI.create(run.base() + "?page=" + page));
      awaitSocket(browser);
      browser.awaitText(By.id("page"), page);
      browser.switchTo(first);
      addNote(browser, "first note");
      browser.switchTo(third);
      awaitNotes(browser, List.of("first note"));

      // move me: the worker badge changes, the counters and the notes stay, no socket reopens
      browser.switchTo(first);
      String before = browser.text(By.id("worker"));
      browser.click(By.id("move"));
      browser.await("the worker badge changes from " + before,
          d -> !browser.text(By.id("worker")).equals(before)
              && browser.text(By.id("worker")).startsWith("main_"));
      browser.awaitText(By.id("counter"), "2");
      browser.awaitText(By.id("pageCounter"), "2");
      awaitNotes(browser, List.of("first note"));
      browser.click(By.id("click")); // served after the wake, over the same socket
      browser.awaitText(By.id("counter"), "3");
      assertThat(socketOpens(browser)).as("socket opens in the moved tab").isEqualTo(1);
      browser.switchTo(second);
      browser.awaitText(By.id("counter"), "3");
      assertThat(socketOpens(browser)).isEqualTo(1);
      browser.switchTo(third);
      browser.awaitText(By.id("pageCounter"), "3");
      assertThat(socketOpens(browser)).isEqualTo(1);

      // log in: the guest's counter is carried into the identity
      browser.switchTo(first);
      WebElement name = browser.find(By.id("name"));
      name.sendKeys("ada" + Keys.ENTER);
      browser.awaitText(By.id("user"), "ada");
      browser.awaitText(By.id("counter"), "3");
      browser.click(By.id("click"));
      browser.awaitText(By.id("counter"), "4");
      browser.screenshot(scratch.resolve("demo-after-login.png"));
    }
  }

  private static void awaitSocket(Browser browser) {
    browser.awaitText(By.id("socket"), "open");
  }

  private static long socketOpens(Browser browser) {
    return ((Number) browser.script("return window.cryoSocketOpens;")).longValue();
  }

  private static void addNote(Browser browser, String text) {
    WebElement note = browser.find(By.id("note"));
    note.sendKeys(text + Keys.ENTER);
  }

  private static void awaitNotes(Browser browser, List<String> expected) {
    browser.await("the notes " + expected, d -> browser.driver().findElements(
        By.cssSelector("#notes li")).stream().map(WebElement::getText).toList().equals(expected));
  }
}
