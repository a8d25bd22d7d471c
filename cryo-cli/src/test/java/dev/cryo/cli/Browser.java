package dev.cryo.cli;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One headless Chromium, driven through the system's chromedriver (Debian's {@code chromium} and
 * {@code chromium-driver}): both paths are given, so nothing is looked up or downloaded at run
 * time. A fresh profile in a scratch directory, no network of its own (no updates, sync, QUIC).
 *
 * <pre>{@code
 * try (Browser browser = Browser.open(scratch)) {
 *   browser.get(run.base());
 *   browser.awaitText(By.id("counter"), "1");
 *   browser.screenshot(scratch.resolve("demo.png"));
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one test thread drives it. Waits are bounded ({@link #PATIENCE}).
 */
final class Browser implements AutoCloseable {

  /** Where Debian puts the browser and its driver; overridable for another machine. */
  static final Path CHROMIUM = Path.of(System.getProperty("cryo.test.chromium", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER = Path.of(System.getProperty("cryo.test.chromedriver",
      "/usr/bin/chromedriver"));

  /**
   * How long a condition of a page may take: twice {@link Poll#PATIENCE}, since a page's first
   * load on a machine many builds share runs a browser, a cold worker and the JIT at once.
   */
  static final Duration PATIENCE = Poll.PATIENCE.multipliedBy(2);

  private final ChromeDriverService service;
  private final ChromeDriver driver;

  private Browser(ChromeDriverService service, ChromeDriver driver) {
    this.service = service;
    this.driver = driver;
  }

  /**
   * Starts a headless Chromium with a fresh profile under {@code scratch}.
   *
   * @throws AssertionError when the browser or its driver is not installed (saying how to)
   */
  static Browser open(Path scratch) throws IOException {
    for (Path needed : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(needed)) {
        throw new AssertionError(needed + " is missing: the browser tests drive the system's"
            + " Chromium; install it with: apt-get install -y chromium chromium-driver");
      }
    }
    Path profile = Files.createTempDirectory(scratch, "chromium-profile");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-dev-shm-usage", "--window-size=1000,900",
        "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .withLogFile(scratch.resolve("chromedriver.log").toFile())
        .build();
    try {
      return new Browser(service, new ChromeDriver(service, options));
    } catch (WebDriverException e) {
      service.stop();
      throw e;
    }
  }

  /** The driver, for what this class does not wrap. */
  WebDriver driver() {
    return driver;
  }

  /** Opens {@code uri} in the current tab and waits for its document to load. */
  void get(URI uri) {
    driver.get(uri.toString());
  }

  /** Opens {@code uri} in a new tab, which becomes the current one; returns the tab's handle. */
  String newTab(URI uri) {
    driver.switchTo().newWindow(WindowType.TAB);
    driver.get(uri.toString());
    return driver.getWindowHandle();
  }

  /** The current tab's handle. */
  String tab() {
    return driver.getWindowHandle();
  }

  /** Makes the tab {@code handle} the current one. */
  void switchTo(String handle) {
    driver.switchTo().window(handle);
  }

  /** The element found by {@code by} in the current tab, waiting (bounded) until it exists. */
  WebElement find(By by) {
    return await("an element " + by, d -> {
      List<WebElement> found = d.findElements(by);
      return found.isEmpty() ? null : found.get(0);
    });
  }

  /**
   * Clicks the element found by {@code by} once it is enabled, as a person would: the demo
   * disables a button while its call is in flight, and a push may show the call's result before
   * its reply re-enables the button; a click on a disabled button does nothing.
   */
  void click(By by) {
    await("an enabled element " + by, d -> {
      List<WebElement> found = d.findElements(by);
      return !found.isEmpty() && found.get(0).isEnabled() ? found.get(0) : null;
    }).click();
  }

  /** The visible text of the element found by {@code by} (waiting until it exists). */
  String text(By by) {
    return find(by).getText();
  }

  /** Waits (bounded) until the element found by {@code by} shows exactly {@code expected}. */
  void awaitText(By by, String expected) {
    await(by + " showing '" + expected + "'", d -> {
      List<WebElement> found = d.findElements(by);
      return !found.isEmpty() && expected.equals(found.get(0).getText()) ? Boolean.TRUE : null;
    });
  }

  /**
   * Waits (bounded) until {@code condition} gives a non-null, non-false value, and returns it.
   *
   * @throws AssertionError naming {@code what} and the page's status line when it never does
   */
  <T> T await(String what, Function<WebDriver, T> condition) {
    try {
      return new WebDriverWait(driver, PATIENCE, Duration.ofMillis(50))
          .withMessage(() -> "waiting until " + what + " (page status: " + statusLine() + ")")
          .until(condition::apply);
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }

  /** Runs {@code script} in the current tab and returns its value. */
  Object script(String script, Object... arguments) {
    return ((JavascriptExecutor) driver).executeScript(script, arguments);
  }

  /** Saves a PNG screenshot of the current tab to {@code file}; returns the file. */
  Path screenshot(Path file) throws IOException {
    File taken = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.copy(taken.toPath(), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return file;
  }

  private String statusLine() {
    try {
      List<WebElement> status = driver.findElements(By.id("status"));
      return status.isEmpty() ? "(none)" : "'" + status.get(0).getText() + "'";
    } catch (WebDriverException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  /** Quits the browser and stops its driver; idempotent. */
  @Override
  public void close() {
    try {
      driver.quit();
    } catch (WebDriverException e) {
      // already gone: nothing left to quit
    } finally {
      service.stop();
    }
  }
}
